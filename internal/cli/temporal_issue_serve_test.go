//go:build temporal

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/forge/ghdouble"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalServeGoesOnWithAContinuationLeft: serve stopped while the
// continuation for its pull request's failing check runs on the fleet
// leaves that run going on there, its issue labelled running (in none of
// serve's lists); serve started again finds it among the runs owning a pull
// request, follows it to its end and pushes its work to the same pull
// request, writing nothing twice.
func TestTemporalServeGoesOnWithAContinuationLeft(t *testing.T) {
	addr := testenv.TemporalServer(t)
	gate := filepath.Join(t.TempDir(), "go")
	d, repo, remote, run := issueOnFleet(t, addr, "[1]\nwrite fixed.txt fixed\n[2]\nwrite started.txt started\nwaitfor "+gate+"\nwrite lint.txt clean\n", false)
	d.AddIssue("acme/tool", ghdouble.Issue{Title: "Make the gate pass", Body: "Write fixed.txt.", Author: "maint", Labels: []string{"agentloop"}})
	args := []string{"serve", "--once", "--issues", "label:agentloop repo:" + d.Host() + "/acme/tool", "--engine", "temporal"}
	if stdout, stderr, err := run(t.Context(), args...); err != nil || !strings.Contains(stderr, "pull request https://") {
		t.Fatalf("serve --once: %v\n%s\n%s\nwant a pull request opened", err, stdout, stderr)
	}
	prs := d.PRs("acme/tool")
	if len(prs) != 1 {
		t.Fatalf("pull requests: %+v, want one", prs)
	}
	head := strings.TrimSpace(git(t, remote, "rev-parse", "agentloop/issue/1"))
	d.AddCheckRun("acme/tool", head, ghdouble.CheckRun{Name: "lint", Conclusion: "failure", Log: "lint.txt is missing"})

	ctx, stop := context.WithCancel(t.Context())
	first := make(chan said, 1)
	go func() {
		o, e, err := run(ctx, args...)
		first <- said{o, e, err}
	}()
	started := filepath.Join(repo, ".agentloop", "worktrees", "issue", "1", "started.txt")
	waitFor(t, "the continuation to start", func() bool { _, err := os.Stat(started); return err == nil })
	stop()
	ended(t, first, time.Minute, "serve, stopped,")
	if is, _ := d.Issue("acme/tool", 1); strings.Join(is.Labels, " ") != "agentloop:running" {
		t.Fatalf("labels %v, want agentloop:running (in none of serve's lists)", is.Labels)
	}

	again := make(chan said, 1)
	go func() {
		o, e, err := run(t.Context(), args...)
		again <- said{o, e, err}
	}()
	writeFile(t, gate, "")
	r := ended(t, again, time.Minute, "serve again")
	if r.err != nil {
		t.Fatalf("serve again: %v\n%s", r.err, r.stderr)
	}
	if got := git(t, remote, "show", "agentloop/issue/1:lint.txt"); strings.TrimSpace(got) != "clean" {
		t.Errorf("lint.txt on the pull request's branch: %q, want the continuation's work\nserve said:\n%s", got, r.stderr)
	}
	if len(d.PRs("acme/tool")) != 1 || len(bodies(t, d, 1, "agentloop-bot", "")) != 1 {
		t.Errorf("%d pull requests and %d comments of agentloop's, want 1 and 1 (progress)", len(d.PRs("acme/tool")), len(bodies(t, d, 1, "agentloop-bot", "")))
	}
}
