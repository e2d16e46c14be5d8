package app

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/testenv"
)

// fakeForge is a forge in memory: one repository's issues, comments,
// labels and pull requests, every call counted, any method made to fail.
// Its clock moves on at each write; a comment or a label moves the issue's
// UpdatedAt, an edit of a comment only the comment's, as on GitHub.
type fakeForge struct {
	mu       sync.Mutex
	issue    forge.Issue
	comments []forge.Comment
	labels   map[string]bool
	prs      []forge.PR
	prBodies []string
	opened   int // OpenPR calls
	edits    int
	posted   int
	nextID   int64
	clock    time.Time
	// fail makes a method fail with its error, once.
	fail map[string]error
	// edited is told of each edit of a comment.
	edited chan struct{}
	// posted runs after each comment agentloop posts (another agentloop
	// racing), once.
	racing func(f *fakeForge, own forge.Comment)
	// head is a branch's commit on the remote (the pull request's head);
	// checks, reviews, threads and conflict what PRStatus answers of the
	// open pull request, checks by its head commit; statuses counts its
	// calls.
	head     func(branch string) string
	checks   map[string][]forge.Check
	reviews  []forge.Review
	threads  []forge.Thread
	conflict bool
	statuses int
	lists    int // Issues calls
	reads    int // Comments calls
}

const bot = "agentloop-bot"

func newFakeForge(ref forge.IssueRef) *fakeForge {
	return &fakeForge{
		issue:  forge.Issue{Ref: ref, Title: "Crash on empty input", Body: "parse(\"\") panics.", Author: "maint", Trusted: true, Open: true, Labels: []string{"agentloop"}, UpdatedAt: epoch},
		labels: map[string]bool{"agentloop": true}, nextID: 100, clock: epoch,
	}
}

func (f *fakeForge) failing(method string) error {
	if err := f.fail[method]; err != nil {
		delete(f.fail, method)
		return err
	}
	return nil
}

// say adds a comment as a person would.
func (f *fakeForge) say(author string, trusted bool, body string) forge.Comment {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	f.clock = f.clock.Add(time.Minute)
	f.issue.UpdatedAt = f.clock
	c := forge.Comment{ID: f.nextID, Author: author, Trusted: trusted, Body: body, URL: fmt.Sprintf("https://github.com/acme/tool/issues/7#issuecomment-%d", f.nextID), CreatedAt: f.clock, UpdatedAt: f.clock}
	f.comments = append(f.comments, c)
	return c
}

func (f *fakeForge) Issue(_ context.Context, ref forge.IssueRef) (forge.Issue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("Issue"); err != nil {
		return forge.Issue{}, err
	}
	is := f.issue
	is.Labels = nil
	for l := range f.labels {
		is.Labels = append(is.Labels, l)
	}
	return is, nil
}

// Issues lists the issue when it is open and has q's labels (always
// changed: the fake has no ETags).
func (f *fakeForge) Issues(_ context.Context, q forge.Query) ([]forge.Issue, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("Issues"); err != nil {
		return nil, false, err
	}
	f.lists++
	for _, l := range q.Labels {
		if !f.labels[l] {
			return nil, true, nil
		}
	}
	if !f.issue.Open {
		return nil, true, nil
	}
	return []forge.Issue{f.issue}, true, nil
}

func (f *fakeForge) Comments(context.Context, forge.IssueRef) ([]forge.Comment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("Comments"); err != nil {
		return nil, err
	}
	f.reads++
	return slices.Clone(f.comments), nil
}

func (f *fakeForge) Permission(context.Context, forge.Repo, string) (forge.Permission, error) {
	return forge.PermissionWrite, nil
}

func (f *fakeForge) Label(_ context.Context, _ forge.IssueRef, add, remove []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("Label"); err != nil {
		return err
	}
	for _, l := range remove {
		delete(f.labels, l)
	}
	for _, l := range add {
		f.labels[l] = true
	}
	f.clock = f.clock.Add(time.Second)
	f.issue.UpdatedAt = f.clock
	return nil
}

func (f *fakeForge) Comment(_ context.Context, _ forge.IssueRef, body string) (forge.Comment, error) {
	f.mu.Lock()
	if err := f.failing("Comment"); err != nil {
		f.mu.Unlock()
		return forge.Comment{}, err
	}
	f.posted++
	race := f.racing
	f.racing = nil
	f.mu.Unlock()
	c := f.say(bot, true, body)
	if race != nil {
		race(f, c)
	}
	return c, nil
}

func (f *fakeForge) EditComment(_ context.Context, _ forge.Repo, id int64, body string) (forge.Comment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("EditComment"); err != nil {
		return forge.Comment{}, err
	}
	for i := range f.comments {
		if f.comments[i].ID == id {
			f.clock = f.clock.Add(time.Second)
			f.comments[i].Body, f.comments[i].UpdatedAt = body, f.clock
			f.edits++
			if f.edited != nil {
				select {
				case f.edited <- struct{}{}:
				default:
				}
			}
			return f.comments[i], nil
		}
	}
	return forge.Comment{}, fmt.Errorf("comment %d: %w", id, forge.ErrNotFound)
}

func (f *fakeForge) OpenPR(_ context.Context, spec forge.PRSpec) (forge.PR, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("OpenPR"); err != nil {
		return forge.PR{}, err
	}
	f.opened++
	f.prBodies = append(f.prBodies, spec.Body) // the receipt as it reads now, opened or updated
	for i, pr := range f.prs {
		if pr.Head == spec.Head && pr.State == forge.PROpen {
			f.prs[i].Base = spec.Base
			return f.prs[i], nil
		}
	}
	n := 50 + len(f.prs)
	pr := forge.PR{Repo: spec.Repo, Number: n, URL: fmt.Sprintf("https://github.com/acme/tool/pull/%d", n), Head: spec.Head, Base: spec.Base, State: forge.PROpen}
	f.prs = append(f.prs, pr)
	return pr, nil
}

func (f *fakeForge) PRStatus(_ context.Context, _ forge.Repo, n int) (forge.PRStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("PRStatus"); err != nil {
		return forge.PRStatus{}, err
	}
	f.statuses++
	for _, pr := range f.prs {
		if pr.Number != n {
			continue
		}
		if f.head != nil {
			pr.HeadSHA = f.head(pr.Head)
		}
		pr.Conflict = f.conflict
		return forge.PRStatus{PR: pr, Checks: slices.Clone(f.checks[pr.HeadSHA]), Reviews: slices.Clone(f.reviews), Threads: slices.Clone(f.threads)}, nil
	}
	return forge.PRStatus{}, fmt.Errorf("pull request %d: %w", n, forge.ErrNotFound)
}

// check puts a completed check on the pull request's head as it is now.
func (f *fakeForge) check(name, conclusion, log string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sha := f.head(f.prs[0].Head)
	if f.checks == nil {
		f.checks = map[string][]forge.Check{}
	}
	// The latest run of a name stands, as GitHub lists them.
	f.checks[sha] = append(slices.DeleteFunc(f.checks[sha], func(c forge.Check) bool { return c.Name == name }), forge.Check{Name: name, Status: "completed", Conclusion: conclusion, LogTail: log})
}

// marked are the comments agentloop wrote with the marker of kind.
func (f *fakeForge) marked(kind string) []forge.Comment {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []forge.Comment
	for _, c := range f.comments {
		if c.Author == bot && strings.Contains(c.Body, forge.Marker(kind)) {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeForge) labelSet() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for l := range f.labels {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

var _ forge.Forge = (*fakeForge)(nil)

// fakeEngine stands in for an engine: each call to Run or Resume ends the
// run as the next of ends says, as a session would leave its state (and,
// escalated, its needs_you record), after writing a file in its work tree.
type fakeEngine struct {
	t        *testing.T
	stateDir string
	ends     []state.Status
	plans    []*plan.Plan
	resumes  []ResumeOptions
	reason   string // an aborted run's ("": a spent budget's)
	// during, when set, runs while the run "runs", its state saved as running.
	during func(save func(func(*state.State)))
	// idle: the run writes nothing in its work tree.
	idle bool
	// kill makes the next call fail as a killed process would: Run saves
	// nothing, Resume leaves the run's state running.
	kill bool
}

func (e *fakeEngine) next() state.Status {
	s := e.ends[0]
	if len(e.ends) > 1 {
		e.ends = e.ends[1:]
	}
	return s
}

func (e *fakeEngine) Run(ctx context.Context, p *plan.Plan, _ Server) (Outcome, error) {
	e.plans = append(e.plans, p)
	if e.kill {
		e.kill = false
		return Outcome{}, errors.New("killed")
	}
	st := &state.State{Version: state.StateVersion, Name: p.Name, RunID: "20260102-030405-aaaa", Procedure: "build", Status: state.StatusRunning,
		StartedAt: epoch, Segment: 1, Issue: p.Issue, WorkDir: p.WorkDir, MaxIterations: 5}
	return e.end(p.WorkDir, st)
}

func (e *fakeEngine) Resume(ctx context.Context, name string, o ResumeOptions) (Outcome, error) {
	e.resumes = append(e.resumes, o)
	st, err := state.Store{Root: e.stateDir}.Load(name)
	if err != nil {
		return Outcome{}, err
	}
	if e.kill {
		e.kill = false
		st.Status = state.StatusRunning
		if err := (state.Store{Root: e.stateDir}).Save(st); err != nil {
			return Outcome{}, err
		}
		return Outcome{}, errors.New("killed")
	}
	if o.Guidance != "" {
		if !o.Reopen && (st.Status == state.StatusSucceeded || st.Status == state.StatusCompleted) {
			return Outcome{}, fmt.Errorf("run %s already %s", name, st.Status)
		}
		st.Segment++
	}
	if o.Accept || o.Abort {
		st.Status = map[bool]state.Status{true: state.StatusCompleted, false: state.StatusAborted}[o.Accept]
		return Outcome{Status: st.Status}, state.Store{Root: e.stateDir}.Save(st)
	}
	return e.end(st.WorkDir, st)
}

func (e *fakeEngine) Report(_ context.Context, name, runID string, _ int) (report.Run, error) {
	st, err := state.Store{Root: e.stateDir}.Load(name)
	if err != nil || st.RunID != runID {
		return report.Run{}, fmt.Errorf("no run %s %s: %v", name, runID, err)
	}
	return report.Run{State: st}, nil
}

func (e *fakeEngine) end(wd string, st *state.State) (Outcome, error) {
	store := state.Store{Root: e.stateDir}
	save := func(change func(*state.State)) {
		change(st)
		if err := store.Save(st); err != nil {
			e.t.Fatal(err)
		}
	}
	save(func(*state.State) {})
	if e.during != nil {
		e.during(save)
	}
	if e.idle {
	} else if err := os.WriteFile(filepath.Join(wd, "fix.txt"), []byte(fmt.Sprintf("fixed %s, segment %d\n", st.RunID, st.Segment)), 0o644); err != nil {
		return Outcome{}, err
	}
	status := e.next()
	st.Status, st.TotalIterations, st.Iteration, st.LastDecision, st.Attempts = status, st.TotalIterations+1, st.Iteration+1, "decided", st.Attempts+1
	if status == state.StatusAborted {
		st.Reason = cmp.Or(e.reason, "the cost budget ($5.00) is spent")
	}
	if status == state.StatusEscalated {
		st.Reason = "the same test fails the same way"
		dir, err := store.MakeRunDir(st.Name, st.RunID)
		if err != nil {
			return Outcome{}, err
		}
		appendTo(filepath.Join(dir, "events.jsonl"), nil)(state.Event{Time: epoch, Data: state.NeedsYou{NeedsYou: decision.NeedsYou{
			Kind: decision.NeedsEscalated, Run: st.Name, Question: "Should parse return an error or an empty result?",
			Evidence: "3 iterations; the last: changed parse.go", Options: []decision.Answer{{Label: "Return an error", TradeOff: "callers change"}},
		}}})
	}
	save(func(*state.State) {})
	return Outcome{Status: status}, nil
}

// issueRepo is a git repository with one commit on main, a bare remote as
// origin, and a change of the person's own not committed.
func issueRepo(t *testing.T) (repo, remote string) {
	t.Helper()
	testenv.NeedTool(t, "git")
	root := t.TempDir()
	repo, remote = filepath.Join(root, "repo"), filepath.Join(root, "remote.git")
	gitIn(t, root, "init", "-q", "--bare", remote)
	gitIn(t, root, "init", "-q", "-b", "main", repo)
	if err := os.WriteFile(filepath.Join(repo, "parse.go"), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".agentloop/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start")
	gitIn(t, repo, "remote", "add", "origin", remote)
	if err := os.WriteFile(filepath.Join(repo, "parse.go"), []byte("package p // the person's edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo, remote
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// issueCase is one issue's run against the fake forge and engine.
type issueCase struct {
	repo, remote string
	f            *fakeForge
	eng          *fakeEngine
	out          *bytes.Buffer
	opts         IssueOptions
	// every is the configuration's issues.progress_every; now the clock
	// (nil: still at epoch).
	every time.Duration
	now   func() time.Time
	// caps are the configuration's issues.caps (zero: the defaults).
	caps config.IssueCaps
}

func newIssueCase(t *testing.T, ends ...state.Status) *issueCase {
	t.Helper()
	repo, remote := issueRepo(t)
	ref := forge.IssueRef{Repo: forge.Repo{Host: "github.com", Owner: "acme", Name: "tool"}, Number: 7}
	c := &issueCase{repo: repo, remote: remote, f: newFakeForge(ref), out: &bytes.Buffer{}}
	stateDir := filepath.Join(repo, ".agentloop")
	c.eng = &fakeEngine{t: t, stateDir: stateDir, ends: ends}
	c.f.head = func(branch string) string { // "": none, or the remote gone
		out, _ := exec.Command("git", "-C", remote, "rev-parse", "--verify", "-q", "refs/heads/"+branch).Output()
		return strings.TrimSpace(string(out))
	}
	c.opts = IssueOptions{
		Ref:   "acme/tool#7",
		Forge: func(context.Context, forge.Repo, config.GitHubApp) (forge.Forge, error) { return c.f, nil },
		Poll:  5 * time.Millisecond, ProgressEvery: time.Hour,
	}
	return c
}

func (c *issueCase) plan() *plan.Plan {
	return &plan.Plan{Name: "build", WorkDir: c.repo, StateDir: filepath.Join(c.repo, ".agentloop"), Proc: config.Procedure{Name: "build"},
		Issues: config.Issues{Labels: config.DefaultIssueLabels, ProgressEvery: c.every, Caps: c.caps}}
}

func (c *issueCase) run(t *testing.T) (Outcome, error) {
	t.Helper()
	o := c.opts
	o.Plan = c.plan()
	pr := testProcess(c.repo)
	pr.Stderr = c.out
	if c.now != nil {
		pr.Now = c.now
	}
	return RunIssue(t.Context(), c.eng, pr, o)
}

func (c *issueCase) state(t *testing.T) *state.State {
	t.Helper()
	st, err := state.Store{Root: filepath.Join(c.repo, ".agentloop")}.Load("issue-7")
	if err != nil {
		t.Fatal(err)
	}
	return st
}
