package engine

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/diff"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/testenv"
)

// editAgent runs edits[i] in the work tree as its i-th run (none past the end).
type editAgent struct {
	dir   string
	edits []func(dir string) error
	ran   int
}

func (a *editAgent) RunAgent(_ context.Context, _ loop.AgentRequest) (evidence.AgentResult, error) {
	a.ran++
	if a.ran <= len(a.edits) {
		if err := a.edits[a.ran-1](a.dir); err != nil {
			return evidence.AgentResult{}, err
		}
	}
	return evidence.AgentResult{Agent: "fake", Outcome: evidence.OutcomeSucceeded}, nil
}

// TestDiffSinceTheRunsStart: an iteration that changes nothing after one that
// deleted two tests has an empty diff of its own, and facts since the run's
// start that name the two tests, taken from the real git checkpoints.
func TestDiffSinceTheRunsStart(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "git")
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	const tests = "package a\n\nimport \"testing\"\n\nfunc TestKeep(t *testing.T) {}\n\nfunc TestA(t *testing.T) { t.Fatal(\"a\") }\n\nfunc TestB(t *testing.T) { t.Fatal(\"b\") }\n"
	git("init", "-q", "-b", "main")
	git("config", "user.name", "Tester")
	git("config", "user.email", "tester@example.com")
	if err := os.WriteFile(filepath.Join(dir, "a_test.go"), []byte(tests), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "initial")

	ws := &gitx.Workspace{Dir: dir, Analyze: func(t string) evidence.DiffFacts { return diff.Analyze(t, diff.Options{}) }}
	defer ws.Close()
	agent := &editAgent{dir: dir, edits: []func(string) error{func(dir string) error {
		return os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package a\n\nimport \"testing\"\n\nfunc TestKeep(t *testing.T) {}\n"), 0o644)
	}}}
	l := &Local{
		Name: "build", RunID: "r1", WorkDir: dir, RunDir: t.TempDir(),
		Agent: agent, Work: ws, Prompt: &fakePrompter{}, Store: &memStore{}, Events: &memEvents{},
		Screen: &warnings{}, Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	first, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Seq: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := first.Iteration.Diff; !slices.Equal(d.TestsRemoved, []string{"TestA", "TestB"}) || d.SinceStart != nil {
		t.Fatalf("iteration 1: tests removed %q, since start %+v; want TestA and TestB, and no second diff (its own is the run's)", d.TestsRemoved, d.SinceStart)
	}
	second, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepIteration, Iteration: 2, Seq: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := second.Iteration.Diff
	if !d.Empty() || len(d.TestsRemoved) > 0 {
		t.Errorf("iteration 2 changed nothing, its diff: %+v", d)
	}
	if d.SinceStart == nil || !slices.Equal(d.SinceStart.TestsRemoved, []string{"TestA", "TestB"}) || d.SinceStart.AssertsRemoved != 2 {
		t.Fatalf("iteration 2 since the run's start: %+v; want TestA and TestB removed, with their 2 assertions", d.SinceStart)
	}
}
