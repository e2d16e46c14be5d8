//go:build temporal

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/forge/ghdouble"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalIssuePhaseRealServer: while the agent of an issue's run on the
// fleet works (until the test lets it go), the issue's progress comment says
// the iteration and phase of the run's step, as its worker's heartbeat told
// the server, in the words of a local run's comment; once the run is done,
// the iteration without a phase.
func TestTemporalIssuePhaseRealServer(t *testing.T) {
	addr := testenv.TemporalServer(t)
	gate := filepath.Join(t.TempDir(), "go")
	d, repo, _, run := issueOnFleet(t, addr, "[*]\nwaitfor "+gate+"\nwrite fixed.txt fixed\n", false)
	// The comment is edited as soon as it changes (not every 30 s).
	cfg := filepath.Join(repo, "agentloop.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, cfg, string(b)+"issues: {progress_every: 1ms}\n")
	git(t, repo, "commit", "-q", "-am", "edit at once")
	d.AddIssue("acme/tool", ghdouble.Issue{Title: "Make the gate pass", Body: "Write fixed.txt.", Author: "maint", Labels: []string{"agentloop"}})

	done := make(chan said, 1)
	go func() {
		o, e, err := run(t.Context(), "run", "fix", "--issue", "https://"+d.Host()+"/acme/tool/issues/1", "--engine", "temporal", "--heartbeat-timeout", "3s")
		done <- said{o, e, err}
	}()
	progress := func() string {
		p := bodies(t, d, 1, "agentloop-bot", "<!-- agentloop:progress -->")
		if len(p) == 0 {
			return ""
		}
		return p[0]
	}
	waitFor(t, "the progress comment to say the agent is at work", func() bool {
		return strings.Contains(progress(), "- Iteration: 1 of 1 (agent)\n")
	})
	writeFile(t, gate, "")
	r := ended(t, done, time.Minute, "run --issue")
	if r.err != nil || !strings.Contains(r.stderr, "pull request https://") {
		t.Fatalf("run --issue: %v\n%s\nwant its pull request", r.err, r.stderr)
	}
	if p := progress(); !strings.Contains(p, "- Iteration: 1 of 1\n") {
		t.Errorf("the progress comment once the run is done:\n%s\nwant its iteration without a phase", p)
	}
}
