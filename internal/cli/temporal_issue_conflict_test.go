//go:build temporal

package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/forge/ghdouble"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalIssueConflictElsewhereRealServer: the pull request of an
// issue's run on the fleet conflicts with its base, which moved: run
// --issue merges the base into the branch in its clone (the conflict
// committed with its markers), shares the merge with the run's checkpoints
// on the remote, and the run's continuation goes on from it on a worker
// working in a clone of its own. Its agent resolves the conflict; the
// branch pushed holds what the base brought and the resolution, and merges
// the base.
func TestTemporalIssueConflictElsewhereRealServer(t *testing.T) {
	addr := testenv.TemporalServer(t)
	d, _, remote, run := issueOnFleet(t, addr, "[1]\nwrite fixed.txt fixed\n[2]\nexpect-prompt Resolve them in fixed.txt\nreplace fixed.txt <<<<<<< <<<<<<<\nwrite fixed.txt resolved\n", true)
	d.AddIssue("acme/tool", ghdouble.Issue{Title: "Make the gate pass", Body: "Write fixed.txt.", Author: "maint", Labels: []string{"agentloop"}})
	issue := func() string {
		t.Helper()
		stdout, stderr, err := run(t.Context(), "run", "fix", "--issue", "https://"+d.Host()+"/acme/tool/issues/1", "--engine", "temporal")
		if err != nil {
			t.Fatalf("run --issue: %v\n%s\n%s", err, stdout, stderr)
		}
		return stderr
	}
	if stderr := issue(); !strings.Contains(stderr, "pull request https://") {
		t.Fatalf("run --issue said:\n%s\nwant a pull request opened", stderr)
	}
	prs := d.PRs("acme/tool")
	if len(prs) != 1 {
		t.Fatalf("pull requests: %+v, want one", prs)
	}

	// main moves meanwhile, with a fixed.txt of its own and a file more.
	other := filepath.Join(t.TempDir(), "other")
	git(t, filepath.Dir(other), "clone", "-q", "-b", "main", remote, other)
	writeFile(t, filepath.Join(other, "fixed.txt"), "fixed on main meanwhile\n")
	writeFile(t, filepath.Join(other, "base.txt"), "main's\n")
	git(t, other, "add", "-A")
	git(t, other, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "main moves")
	git(t, other, "push", "-q", "origin", "main")
	main := strings.TrimSpace(git(t, other, "rev-parse", "HEAD"))
	d.SetConflict("acme/tool", prs[0].Number, true)

	stderr := issue()
	for _, want := range []string{"it conflicts with main; run issue-1 goes on", "pull request https://"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("run --issue with a conflict said:\n%s\nwant %q", stderr, want)
		}
	}
	head := strings.TrimSpace(git(t, remote, "rev-parse", "agentloop/issue/1"))
	if got := git(t, remote, "show", head+":fixed.txt"); strings.TrimSpace(got) != "resolved" {
		t.Errorf("fixed.txt on the pushed branch: %q, want the continuation's resolution", got)
	}
	if got := git(t, remote, "show", head+":base.txt"); strings.TrimSpace(got) != "main's" {
		t.Errorf("base.txt on the pushed branch: %q, want what main brought (the continuation started from the merge)", got)
	}
	if git(t, remote, "merge-base", main, head) != main+"\n" {
		t.Errorf("the pushed branch %s does not merge main %s", head, main)
	}
	if q := bodies(t, d, 1, "agentloop-bot", "needs you"); len(q) != 0 {
		t.Errorf("a person was asked: %q", q)
	}
	if len(d.PRs("acme/tool")) != 1 {
		t.Errorf("%d pull requests, want 1", len(d.PRs("acme/tool")))
	}
}
