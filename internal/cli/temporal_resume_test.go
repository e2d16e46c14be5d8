//go:build temporal

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalSettleRealServer: on a real dev server, a run that escalated
// shows the command of each option with --engine temporal, in report and in
// escalation-001.md; `resume --accept` ends it completed and `resume --abort`
// aborted, as locally (exit 0, the same words); --accept of a run that does
// not wait is refused as locally; `resume` of the aborted run keeps the
// heartbeat timeout it was started with, unless the flag gives another.
func TestTemporalSettleRealServer(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	plan := "[1]\nwrite notes.txt looked around\n[*]\nprint looking around, changing nothing\n"
	extra := "    gates: [{name: fixed, run: \"test -f fixed.txt\"}]\n    limits: {max_iterations: 1}\n"
	fakeProcedures(t, repo, aux, map[string]string{"build": plan, "other": plan}, nil, map[string]string{"build": extra, "other": extra})
	graphRepo(t, repo, "tasks: []\n")
	// The commands are given the server as a flag (and the environment), which
	// the escalation's commands then carry.
	run := cliOn(t, addr, repo)
	server := []string{"--engine", "temporal", "--temporal-address", addr}
	c := dialTest(t, addr)

	for _, name := range []string{"build", "other"} {
		stdout, stderr, err := run(append([]string{"run", name, "--heartbeat-timeout", "7s"}, server...)...)
		if ExitCode(err) != ExitEscalated {
			t.Fatalf("run %s: exit %d (%v), want %d\n%s\n%s", name, ExitCode(err), err, ExitEscalated, stdout, stderr)
		}
	}
	abort := "`agentloop resume build --abort --engine temporal --temporal-address=" + addr + "`"
	stdout, _, err := run(append([]string{"report", "build"}, server...)...)
	if err != nil || !strings.Contains(stdout, abort) {
		t.Errorf("report of the waiting run: %v\n%s\nwant %s", err, stdout, abort)
	}
	if m, _ := filepath.Glob(filepath.Join(repo, ".agentloop", "runs", "build", "*", "escalation-001.md")); len(m) != 1 {
		t.Errorf("escalation-001.md: found %v, want one", m)
	} else if b, _ := os.ReadFile(m[0]); !strings.Contains(string(b), abort) {
		t.Errorf("escalation-001.md:\n%s\nwant %s", b, abort)
	}

	_, stderr, err := run(append([]string{"resume", "build", "--accept"}, server...)...)
	if err != nil || !strings.Contains(stderr, "Finished: completed — you accepted ") {
		t.Errorf("resume --accept: %v\n%s", err, stderr)
	}
	_, stderr, err = run(append([]string{"resume", "other", "--abort"}, server...)...)
	if err != nil || !strings.Contains(stderr, "Finished: aborted — aborted by you after the escalation") {
		t.Errorf("resume --abort: %v\n%s", err, stderr)
	}
	for name, want := range map[string]state.Status{"build": state.StatusCompleted, "other": state.StatusAborted} {
		stdout, _, err := run(append([]string{"status", name}, server...)...)
		if err != nil || !strings.Contains(stdout, string(want)) {
			t.Errorf("status %s: %v\n%s\nwant %s", name, err, stdout, want)
		}
	}
	_, _, err = run(append([]string{"resume", "build", "--abort"}, server...)...)
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "not waiting for an answer to an escalation") {
		t.Errorf("resume --abort of a completed run: %v, want the local engine's usage error", err)
	}

	// The aborted run continues with the heartbeat timeout it was started with.
	for _, tt := range []struct {
		flags []string
		want  time.Duration
	}{{nil, 7 * time.Second}, {[]string{"--heartbeat-timeout", "9s"}, 9 * time.Second}} {
		stdout, stderr, err := run(append(append([]string{"resume", "other"}, tt.flags...), server...)...)
		if ExitCode(err) != ExitEscalated {
			t.Fatalf("resume other %v: exit %d (%v), want %d\n%s\n%s", tt.flags, ExitCode(err), err, ExitEscalated, stdout, stderr)
		}
		if v, _, err := temporal.Find(t.Context(), c, "other", repoID(repo)); err != nil || v.HeartbeatTimeout != tt.want {
			t.Errorf("resume other %v: heartbeat timeout %s (%v), want %s", tt.flags, v.HeartbeatTimeout, err, tt.want)
		}
		if _, _, err := run(append([]string{"resume", "other", "--abort"}, server...)...); err != nil {
			t.Fatalf("resume other --abort: %v", err)
		}
	}
}
