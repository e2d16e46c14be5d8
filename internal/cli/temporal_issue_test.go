//go:build temporal

package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/forge/ghdouble"
	"github.com/agentloop/agentloop/internal/forge/github"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/testenv"
)

// issueOnFleet is a repository whose issues are on a GitHub double, its
// branches on a bare remote (origin), and the agentloop command run in it
// against the dev server at addr with a worker of its own; the procedure fix
// is the fake agent playing plan, with a gate that passes once fixed.txt is
// there and one iteration a segment.
//
// With elsewhere, the worker works in a clone of its own of the remote and
// pushes its checkpoints there (worker --work-tree, --checkpoint-remote).
func issueOnFleet(t *testing.T, addr, plan string, elsewhere bool) (d *ghdouble.Server, repo, remote string, run func(ctx context.Context, args ...string) (string, string, error)) {
	t.Helper()
	testenv.NeedTool(t, "git")
	root, aux := t.TempDir(), t.TempDir()
	repo, remote = filepath.Join(root, "repo"), filepath.Join(root, "remote.git")
	git(t, root, "init", "-q", "--bare", remote)
	fakeProcedures(t, repo, aux, map[string]string{"fix": plan}, nil,
		map[string]string{"fix": "    gates: [{name: fixed, run: \"test -f fixed.txt\"}]\n    limits: {max_iterations: 1}\ndefault: fix\n"})
	graphRepo(t, repo, "tasks: []\n")
	git(t, repo, "remote", "add", "origin", remote)
	git(t, repo, "push", "-q", "origin", "main")
	var workerArgs []string
	if elsewhere {
		clone := filepath.Join(root, "worker")
		git(t, root, "clone", "-q", "-b", "main", remote, clone)
		workerArgs = []string{"--work-tree", clone, "--checkpoint-remote", "origin"}
	}

	d = ghdouble.Start(t, ghdouble.Options{TLS: true})
	d.AddToken("tok", ghdouble.Token{Login: "agentloop-bot", Scopes: []string{"repo"}})
	d.AddRepo("acme/tool", ghdouble.Repo{Remote: remote})
	d.SetPermission("acme/tool", "agentloop-bot", "write")
	d.SetPermission("acme/tool", "maint", "maintain")
	t.Cleanup(func() {
		for _, v := range d.Violations() {
			t.Errorf("the GitHub double answered what GitHub's description does not allow: %s", v)
		}
	})
	run = cliOnWith(t, addr, repo, func(dp *Deps) { dp.Forge = doubleForge(d) }, workerArgs...)
	return d, repo, remote, run
}

// doubleForge opens the GitHub double d as agentloop-bot.
func doubleForge(d *ghdouble.Server) app.OpenForge {
	return func(_ context.Context, repo forge.Repo, _ config.GitHubApp) (forge.Forge, error) {
		return github.New(github.Options{Host: repo.Host, Token: "tok", Transport: d.Client().Transport})
	}
}

// TestTemporalIssueOfAnotherClone: run --issue --engine temporal in a clone
// that shares the identity of the clone whose run of the issue waits on the
// fleet (a copy of it) but keeps no issue record of it says that the run is
// another clone's agentloop's, where it works and what to do, and writes
// nothing on the issue. Once that run has ended, the issue is no run of this
// clone's: run --issue takes it afresh, and the other agentloop's claim,
// still live, says that it was taken.
func TestTemporalIssueOfAnotherClone(t *testing.T) {
	addr := testenv.TemporalServer(t)
	d, repo, _, run := issueOnFleet(t, addr, "[*]\nprint nothing to do\n", false)
	d.AddIssue("acme/tool", ghdouble.Issue{Title: "Make the gate pass", Body: "Nobody knows how.", Author: "maint", Labels: []string{"agentloop"}})
	ref := "https://" + d.Host() + "/acme/tool/issues/1"
	if _, stderr, err := run(t.Context(), "run", "fix", "--issue", ref, "--engine", "temporal"); ExitCode(err) != ExitEscalated {
		t.Fatalf("run --issue: exit %d (%v), want %d\n%s", ExitCode(err), err, ExitEscalated, stderr)
	}
	copied := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", repo, copied).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if err := os.RemoveAll(filepath.Join(copied, ".agentloop", "issues")); err != nil {
		t.Fatal(err)
	}
	there := cliOnWith(t, addr, copied, func(dp *Deps) { dp.Forge = doubleForge(d) })
	written := len(bodies(t, d, 1, "agentloop-bot", ""))
	stdout, stderr, err := there(t.Context(), "run", "fix", "--issue", ref, "--engine", "temporal")
	said := stdout + stderr
	if err != nil {
		said += err.Error()
	}
	for _, want := range []string{"its run issue-1 waits for a person on the Temporal server", "this clone keeps no issue record of it",
		"another clone's agentloop started it", "working in " + filepath.Join(repo, ".agentloop", "worktrees", "issue", "1"), "Run the issue from that clone"} {
		if !strings.Contains(said, want) {
			t.Errorf("run --issue in the copy: exit %d, said no %q:\n%s", ExitCode(err), want, said)
		}
	}
	if strings.Contains(said, "that is not an issue's") || ExitCode(err) != ExitUsage {
		t.Errorf("run --issue in the copy: exit %d, want %d and the fleet's words:\n%s", ExitCode(err), ExitUsage, said)
	}
	if n := len(bodies(t, d, 1, "agentloop-bot", "")); n != written {
		t.Errorf("the copy wrote on the issue: %d comments of agentloop's, want %d", n, written)
	}

	d.AddComment("acme/tool", 1, "maint", "/agentloop abort")
	if _, stderr, err := run(t.Context(), "run", "fix", "--issue", ref, "--engine", "temporal"); err != nil && ExitCode(err) == ExitUsage {
		t.Fatalf("run --issue with the abort: %v\n%s", err, stderr)
	}
	_, stderr, err = there(t.Context(), "run", "fix", "--issue", ref, "--engine", "temporal")
	if err == nil || !strings.Contains(err.Error(), "another agentloop claimed the issue first") {
		t.Errorf("run --issue in the copy once the run ended: %v\n%s\nwant the other agentloop's claim said", err, stderr)
	}
}

// bodies are the bodies of the comments on issue n of the double by who
// that hold marker.
func bodies(t *testing.T, d *ghdouble.Server, n int, who, marker string) []string {
	t.Helper()
	is, ok := d.Issue("acme/tool", n)
	if !ok {
		t.Fatalf("no issue %d", n)
	}
	var out []string
	for _, c := range is.Comments {
		if c.Author == who && strings.Contains(c.Body, marker) {
			out = append(out, c.Body)
		}
	}
	return out
}

// TestTemporalIssueRealServer: run --issue --engine temporal runs the
// issue as one workflow on the fleet through the application's issue flow:
// the run claims the issue (its progress comment, following the run's state
// read from the server), escalates and asks its question on the issue; run
// again without an answer it still waits, asking nothing twice; a writer's
// /agentloop guide answers it through the fleet's resume, and the run goes
// on to its pull request from agentloop/issue/1, pushed to the remote, its
// body the receipt. Run again, it writes nothing twice: one progress
// comment, one question, one pull request. A check then failing on the pull
// request, the run goes on on the fleet (reopened with the check's log) and
// its work reaches the pull request's branch; a conflict is asked of a
// person, once; merged, the run is over.
func TestTemporalIssueRealServer(t *testing.T) {
	addr := testenv.TemporalServer(t)
	d, repo, remote, run := issueOnFleet(t, addr, "[1]\nprint nothing to do\n[2]\nexpect-prompt keep it small\nwrite fixed.txt fixed\n[3]\nexpect-prompt The end of its log\nwrite lint.txt clean\n[4]\nexpect-prompt merged origin/main into this branch and the merge went through cleanly\n", false)
	n := d.AddIssue("acme/tool", ghdouble.Issue{Title: "Make the gate pass", Body: "Nobody knows how.", Author: "maint", Labels: []string{"agentloop"}})
	ref := "https://" + d.Host() + "/acme/tool/issues/1"
	if n != 1 {
		t.Fatalf("issue %d, want 1", n)
	}
	issue := func(want int) (string, string) {
		t.Helper()
		stdout, stderr, err := run(t.Context(), "run", "fix", "--issue", ref, "--engine", "temporal")
		if ExitCode(err) != want {
			t.Fatalf("run --issue: exit %d (%v), want %d\n%s\n%s", ExitCode(err), err, want, stdout, stderr)
		}
		return stdout, stderr
	}

	_, stderr := issue(ExitEscalated)
	if !strings.Contains(stderr, "the question is on the issue") {
		t.Errorf("run --issue said:\n%s\nwant the question asked on the issue", stderr)
	}
	is, _ := d.Issue("acme/tool", 1)
	if strings.Join(is.Labels, " ") != "agentloop:needs-you" {
		t.Errorf("labels %v, want agentloop:needs-you", is.Labels)
	}
	if q := bodies(t, d, 1, "agentloop-bot", "<!-- agentloop:escalation -->"); len(q) != 1 || !strings.Contains(q[0], "Run `issue-1` stopped to ask") {
		t.Errorf("questions on the issue: %q, want one", q)
	}
	if p := bodies(t, d, 1, "agentloop-bot", "<!-- agentloop:progress -->"); len(p) != 1 || !strings.Contains(p[0], "waiting for an answer") || !strings.Contains(p[0], "Iteration: 1 of 1") {
		t.Errorf("progress comments: %q, want one waiting for an answer at iteration 1", p)
	}

	_, stderr = issue(ExitEscalated)
	if !strings.Contains(stderr, "still waiting for an answer") {
		t.Errorf("run --issue again said:\n%s\nwant it still waiting", stderr)
	}
	if q := bodies(t, d, 1, "agentloop-bot", "<!-- agentloop:escalation -->"); len(q) != 1 {
		t.Errorf("questions after a second run: %d, want still one", len(q))
	}

	d.AddComment("acme/tool", 1, "maint", "/agentloop guide keep it small")
	_, stderr = issue(ExitOK)
	for _, want := range []string{"maint answered the escalation (guide)", "Guidance sent to run issue-1", "pull request https://"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("run --issue after the answer said:\n%s\nwant %q", stderr, want)
		}
	}
	prs := d.PRs("acme/tool")
	if len(prs) != 1 || prs[0].Head != "agentloop/issue/1" || prs[0].Base != "main" || !strings.Contains(prs[0].Body, "Closes #1") {
		t.Fatalf("pull requests: %+v, want one from agentloop/issue/1 into main closing #1", prs)
	}
	if got := git(t, remote, "show", "agentloop/issue/1:fixed.txt"); strings.TrimSpace(got) != "fixed" {
		t.Errorf("fixed.txt on the pushed branch: %q, want the run's work", got)
	}
	is, _ = d.Issue("acme/tool", 1)
	if strings.Join(is.Labels, " ") != "agentloop:done" {
		t.Errorf("labels %v, want agentloop:done", is.Labels)
	}
	if git(t, repo, "status", "--porcelain", "--untracked-files=no") != "" {
		t.Errorf("the person's checkout was changed")
	}

	_, stderr = issue(ExitOK)
	if !strings.Contains(stderr, "nothing to do") {
		t.Errorf("run --issue once the pull request is open said:\n%s\nwant nothing to do", stderr)
	}
	if len(d.PRs("acme/tool")) != 1 || len(bodies(t, d, 1, "agentloop-bot", "")) != 2 {
		t.Errorf("after a restart: %d pull requests and %d comments of agentloop's, want 1 and 2 (progress, question)", len(d.PRs("acme/tool")), len(bodies(t, d, 1, "agentloop-bot", "")))
	}

	// A check failing on its pull request: the run goes on on the fleet
	// with the check's log as guidance, and its pull request gets the work.
	head := strings.TrimSpace(git(t, remote, "rev-parse", "agentloop/issue/1"))
	d.AddCheckRun("acme/tool", head, ghdouble.CheckRun{Name: "lint", Conclusion: "failure", Log: "lint.txt is missing"})
	_, stderr = issue(ExitOK)
	for _, want := range []string{"the check lint failed (failure); run issue-1 goes on", "pull request https://"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("run --issue with a failing check said:\n%s\nwant %q", stderr, want)
		}
	}
	if got := git(t, remote, "show", "agentloop/issue/1:lint.txt"); strings.TrimSpace(got) != "clean" {
		t.Errorf("lint.txt on the pushed branch: %q, want the continuation's work", got)
	}
	if prs := d.PRs("acme/tool"); len(prs) != 1 || len(bodies(t, d, 1, "agentloop-bot", "")) != 2 {
		t.Errorf("after the continuation: %d pull requests and %d comments of agentloop's, want 1 and 2", len(prs), len(bodies(t, d, 1, "agentloop-bot", "")))
	}

	// A conflict (GitHub's word; the base has not moved) is merged here and
	// the run goes on from the merge on the fleet
	// (TestTemporalIssueConflictElsewhereRealServer: a base that moved).
	d.SetConflict("acme/tool", prs[0].Number, true)
	_, stderr = issue(ExitOK)
	for _, want := range []string{"it conflicts with main; run issue-1 goes on", "pull request https://"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("run --issue with a conflict said:\n%s\nwant %q", stderr, want)
		}
	}
	d.SetConflict("acme/tool", prs[0].Number, false)
	is, _ = d.Issue("acme/tool", 1)
	if strings.Join(is.Labels, " ") != "agentloop:done" {
		t.Errorf("labels %v, want agentloop:done", is.Labels)
	}
	// clean keeps the issue's record while its pull request is open, and
	// removes it once its issue is done.
	record := filepath.Join(repo, ".agentloop", "issues", "issue-1.json")
	cleaned := func() bool {
		t.Helper()
		if stdout, stderr, err := run(t.Context(), "clean", "-f", "--engine", "temporal"); err != nil {
			t.Fatalf("clean: %v\n%s\n%s", err, stdout, stderr)
		}
		_, err := os.Stat(record)
		return err != nil
	}
	if cleaned() {
		t.Errorf("clean removed the record of the issue whose pull request is open")
	}
	d.MergePR("acme/tool", prs[0].Number)
	if _, stderr = issue(ExitOK); !strings.Contains(stderr, "was merged: the run issue-1 is over") {
		t.Errorf("run --issue once merged said:\n%s\nwant the run over", stderr)
	}
	if !cleaned() {
		t.Errorf("clean left the record of the issue whose pull request was merged")
	}
	// Its record gone, the issue (still open) is taken afresh: a new run of
	// the name, as on the local engine once clean removed the run's state.
	if _, stderr = issue(ExitEscalated); !strings.Contains(stderr, "run issue-1 works on branch agentloop/issue/1") {
		t.Errorf("run --issue once its record was cleaned said:\n%s\nwant a new run of the issue", stderr)
	}
}

// TestTemporalServeElsewhereRealServer: serve --engine temporal takes a
// labelled issue and runs it on a worker that works in a clone of its own
// and pushes its checkpoints to the remote the clones share: the pull
// request's branch, committed and pushed from serve's clone, holds the
// work of the run's last checkpoint, fetched from that remote. Served
// again, its run owns the open pull request, and nothing is written twice.
// The run records serve's cap per issue as its --max-cost, and none of
// serve's own flags, which the worker could not read.
func TestTemporalServeElsewhereRealServer(t *testing.T) {
	addr := testenv.TemporalServer(t)
	d, repo, remote, run := issueOnFleet(t, addr, "[*]\nwrite fixed.txt fixed\n", true)
	d.AddIssue("acme/tool", ghdouble.Issue{Title: "Make the gate pass", Body: "Write fixed.txt.", Author: "maint", Labels: []string{"agentloop"}})
	serve := func() string {
		t.Helper()
		stdout, stderr, err := run(t.Context(), "serve", "--once", "--issues", "label:agentloop repo:"+d.Host()+"/acme/tool", "--max-cost-per-issue", "5", "--engine", "temporal")
		if err != nil {
			t.Fatalf("serve --once: %v\n%s\n%s", err, stdout, stderr)
		}
		return stderr
	}
	if stderr := serve(); !strings.Contains(stderr, "pull request https://") {
		t.Fatalf("serve said:\n%s\nwant a pull request opened", stderr)
	}
	prs := d.PRs("acme/tool")
	if len(prs) != 1 || prs[0].Head != "agentloop/issue/1" || !strings.Contains(prs[0].Body, "Closes #1") {
		t.Fatalf("pull requests: %+v, want one from agentloop/issue/1 closing #1", prs)
	}
	if !regexp.MustCompile("the full report, `agentloop report issue-1 --run [0-9a-f-]+ --engine temporal").MatchString(prs[0].Body) {
		t.Errorf("the pull request's body names the full report's command without its engine:\n%s", prs[0].Body)
	}
	if got := git(t, remote, "show", "agentloop/issue/1:fixed.txt"); strings.TrimSpace(got) != "fixed" {
		t.Errorf("fixed.txt on the pushed branch: %q, want the work of the run's last checkpoint", got)
	}
	// Its run records serve's cap as its own, and none of serve's flags.
	if v, _, err := temporal.Find(t.Context(), dialTest(t, addr), "issue-1", repoID(repo)); err != nil || !slices.Equal(v.State.Args, []string{"--max-cost=5"}) {
		t.Errorf("the run's recorded flags: %q (%v), want [--max-cost=5]", v.State.Args, err)
	}
	if _, err := os.Stat(filepath.Join(repo, "fixed.txt")); err == nil {
		t.Errorf("the work reached the person's checkout")
	}
	if stderr := serve(); !strings.Contains(stderr, "no check failing, no change asked, no conflict: nothing to do") {
		t.Errorf("served again said:\n%s\nwant its pull request read (the run owns it)", stderr)
	}
	if len(d.PRs("acme/tool")) != 1 || len(bodies(t, d, 1, "agentloop-bot", "")) != 1 {
		t.Errorf("served again: %d pull requests and %d comments of agentloop's, want 1 and 1 (progress)", len(d.PRs("acme/tool")), len(bodies(t, d, 1, "agentloop-bot", "")))
	}
}

// TestTemporalIssueRestartFollowsRealServer: run --issue stopped while its
// workflow runs on the fleet leaves the run going on there; run again, it
// follows that run to its end (rather than resume a run that is not over)
// and opens its pull request, its progress comment the same.
func TestTemporalIssueRestartFollowsRealServer(t *testing.T) {
	addr := testenv.TemporalServer(t)
	gate := filepath.Join(t.TempDir(), "go")
	d, repo, _, run := issueOnFleet(t, addr, "[*]\nwrite started.txt started\nwaitfor "+gate+"\nwrite fixed.txt fixed\n", false)
	d.AddIssue("acme/tool", ghdouble.Issue{Title: "Make the gate pass", Body: "Write fixed.txt.", Author: "maint", Labels: []string{"agentloop"}})
	args := []string{"run", "fix", "--issue", "https://" + d.Host() + "/acme/tool/issues/1", "--engine", "temporal"}

	ctx, stop := context.WithCancel(t.Context())
	first := make(chan said, 1)
	go func() {
		o, e, err := run(ctx, args...)
		first <- said{o, e, err}
	}()
	started := filepath.Join(repo, ".agentloop", "worktrees", "issue", "1", "started.txt")
	waitFor(t, "the agent to start", func() bool { _, err := os.Stat(started); return err == nil })
	stop()
	ended(t, first, time.Minute, "run --issue, stopped,")
	progress := func() ghdouble.Comment {
		is, _ := d.Issue("acme/tool", 1)
		for _, c := range is.Comments {
			if strings.Contains(c.Body, "<!-- agentloop:progress -->") {
				return c
			}
		}
		return ghdouble.Comment{}
	}
	edits := len(progress().Edits)

	again := make(chan said, 1)
	go func() {
		o, e, err := run(t.Context(), args...)
		again <- said{o, e, err}
	}()
	// Once the restart has claimed the issue again (an edit of its comment),
	// the run may end.
	waitFor(t, "the restart to claim the issue", func() bool { return len(progress().Edits) > edits })
	writeFile(t, gate, "")
	r := ended(t, again, time.Minute, "run --issue again")
	if r.err != nil || !strings.Contains(r.stderr, "pull request https://") {
		t.Fatalf("run --issue again: %v\n%s\nwant it to follow the run to its pull request", r.err, r.stderr)
	}
	if len(d.PRs("acme/tool")) != 1 || len(bodies(t, d, 1, "agentloop-bot", "")) != 1 {
		t.Errorf("%d pull requests and %d comments of agentloop's, want 1 and 1", len(d.PRs("acme/tool")), len(bodies(t, d, 1, "agentloop-bot", "")))
	}
}

// waitFor waits up to a minute for done, which what names.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(50 * time.Millisecond) // no event to wait on
	}
}

// TestTemporalServeBadQuery: serve --engine temporal says what is wrong with
// a query it cannot read before it asks the server anything (none listens at
// the address), and leaves the clone's state folder as it was.
func TestTemporalServeBadQuery(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "git")
	repo, aux := t.TempDir(), t.TempDir()
	fakeProcedures(t, repo, aux, map[string]string{"fix": "write fixed.txt fixed\n"}, nil, map[string]string{"fix": "default: fix\n"})
	graphRepo(t, repo, "tasks: []\n")
	var out, errOut bytes.Buffer
	d := Std()
	d.Stdout, d.Stderr = &out, &errOut
	d.Getenv = func(k string) string {
		return map[string]string{"AGENTLOOP_TEMPORAL_ADDRESS": "127.0.0.1:1", "PATH": "/usr/bin:/bin"}[k]
	}
	d.Getwd = func() (string, error) { return repo, nil }
	d.IsTerminal = func(io.Writer) bool { return false }
	err := Run(t.Context(), []string{"serve", "--once", "--issues", "is:open repo:acme/tool", "--engine", "temporal"}, d)
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "is: is not a qualifier serve knows") {
		t.Errorf("serve with a query it cannot read: exit %d (%v), want the query's usage error", ExitCode(err), err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".agentloop", "repository-id")); err == nil {
		t.Errorf("serve made the clone's identity for the fleet before refusing its query")
	}
}
