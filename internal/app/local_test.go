package app

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/testenv"
)

// A signal as a session starts (its context already cancelled) does not make
// the engine take the repository for a folder outside git: a cut attempt the
// session recovers is still kept under its cut ref, and the restore it does
// not get to is left for the next session, as in any interrupted run.
func TestNewEngineKeepsGitWhenCancelled(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "git")
	wd := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = wd
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	p := testPlan(wd, "build")
	p.Proc.Git.Checkpoint = true
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	runDir := filepath.Join(wd, ".agentloop", "runs", "build", "r1")
	l := engine.New(ctx, p.Parts(nil, runDir), engine.Options{RunID: "r1", RunDir: runDir})
	if l.Work == nil {
		t.Error("a cancelled session start took the git work tree for a folder outside git")
	}
}
