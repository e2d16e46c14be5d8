package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/ui"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testProcess(wd string) Process {
	return Process{Stdout: io.Discard, Now: func() time.Time { return epoch }, Getwd: func() (string, error) { return wd, nil }}
}

func testPlan(wd, name string) *plan.Plan {
	return &plan.Plan{Name: name, WorkDir: wd, StateDir: filepath.Join(wd, ".agentloop"), Proc: config.Procedure{Name: "build"}}
}

func save(t *testing.T, stateDir string, st *state.State) {
	t.Helper()
	if st.Version == 0 {
		st.Version, st.RunID, st.Procedure, st.StartedAt = state.StateVersion, "r1", "build", epoch
	}
	if err := (state.Store{Root: stateDir}).Save(st); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAndResume(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	p := testPlan(wd, "build")
	screen := ui.New(ui.Options{Out: io.Discard, Now: time.Now})

	s, err := Open(testProcess(wd), p, screen, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if st := s.State(); st.Name != "build" || st.Status != state.StatusRunning || !strings.HasPrefix(st.RunID, "20260102-030405-") {
		t.Errorf("a new run's state: %+v", st)
	}
	if _, err := Open(testProcess(wd), p, screen, nil, true); err == nil {
		t.Error("a second session of the same run took its lock")
	}
	s.Close()

	for _, tt := range []struct {
		status   state.Status
		guidance string
		reopen   bool // new evidence after the run succeeded
		usage    bool // a UsageError; else another error, or none when ok
		ok       bool
	}{
		{state.StatusSucceeded, "", false, false, false},
		{state.StatusSucceeded, "the check lint fails", false, false, false},
		{state.StatusSucceeded, "", true, false, false},
		{state.StatusSucceeded, "the check lint fails", true, false, true},
		{state.StatusEscalated, "", false, true, false},
		{state.StatusEscalated, "keep the old API", false, false, true},
		{state.StatusInterrupted, "", false, false, true},
	} {
		save(t, p.StateDir, &state.State{Name: "build", Status: tt.status, Reason: "why"})
		s, err := Open(testProcess(wd), p, screen, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Resume(t.Context(), Answer{Guidance: tt.guidance, Reopen: tt.reopen})
		_, usage := errors.AsType[*UsageError](err)
		if (err == nil) != tt.ok || usage != tt.usage {
			t.Errorf("resume a run %s with guidance %q (reopen %v): %v", tt.status, tt.guidance, tt.reopen, err)
		}
		if err == nil {
			if tt.guidance != "" && s.State().Guidance != tt.guidance {
				t.Error("the guidance is not recorded in the state")
			}
			s.Close()
		}
		// The lock is free again either way.
		again, err := Open(testProcess(wd), p, screen, nil, false)
		if err != nil {
			t.Fatalf("after resume of a run %s: %v", tt.status, err)
		}
		again.Close()
	}

	if _, err := Open(testProcess(wd), testPlan(wd, "../x"), screen, nil, true); !isUsage(err) {
		t.Errorf("an invalid run name: %v, want a usage error", err)
	}
}

func isUsage(err error) bool {
	_, ok := errors.AsType[*UsageError](err)
	return ok
}

func TestGraphBudget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cost := func(usd float64, tokens int64) state.Spend {
		return state.Spend{Usage: evidence.Usage{CostUSD: usd, CostKnown: true, InputTokens: tokens, TokensKnown: true}}
	}
	save(t, dir, &state.State{Name: "g-a", Status: state.StatusSucceeded, Spend: cost(3, 300)})
	save(t, dir, &state.State{Name: "g-b", Status: state.StatusRunning, Spend: cost(2, 200)})
	save(t, dir, &state.State{Name: "other", Status: state.StatusSucceeded, Spend: cost(100, 10000)})
	g := &graphRun{name: "g", stateDir: dir, file: &tasks.File{Budget: budget.Limits{MaxCostUSD: 10, MaxTokens: 1000}}}

	if u := g.spent(); u.CostUSD != 5 || u.Tokens != 500 {
		t.Errorf("spent %+v, want $5 and 500 tokens (the graph's tasks only)", u)
	}
	if over, why := g.budget(); over {
		t.Errorf("under budget, yet exhausted: %s", why)
	}
	p := testPlan(dir, "g-b")
	p.Proc.Limits.MaxCostUSD = 20
	g.capToGlobal(p, cost(2, 200).Usage)
	if l := p.Proc.Limits; l.MaxCostUSD != 7 || l.MaxTokens != 700 {
		t.Errorf("task limits capped to $%v and %d tokens, want $7 and 700 (what the others left)", l.MaxCostUSD, l.MaxTokens)
	}
	// A task not started yet is capped by what every task spent.
	p.Proc.Limits.MaxCostUSD, p.Proc.Limits.MaxTokens = 20, 0
	g.capToGlobal(p, evidence.Usage{})
	if l := p.Proc.Limits; l.MaxCostUSD != 5 || l.MaxTokens != 500 {
		t.Errorf("a fresh task's limits capped to $%v and %d tokens, want $5 and 500 (what every task left)", l.MaxCostUSD, l.MaxTokens)
	}
	g.file.Budget.MaxCostUSD = 5
	if over, why := g.budget(); !over || !strings.Contains(why, "global budget: cost: $5.00 spent of $5.00") {
		t.Errorf("at the budget: %v %q", over, why)
	}
}

// History is append-only: a new run removes no run folder, not even one a
// process killed before its first state save left behind with only its
// events (stillborn: told apart by report and clean, removed by clean alone).
func TestOpenKeepsEveryRunFolder(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	p := testPlan(wd, "build")
	store := state.Store{Root: p.StateDir}
	folders := map[string]string{
		"stillborn": "events.jsonl", "iterated": "iter-001/prompt.md", "copied": "state.json", "baselined": "baseline/tests.log",
	}
	for dir, file := range folders {
		path := filepath.Join(store.RunDir("build", dir), file)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(testProcess(wd), p, ui.New(ui.Options{Out: io.Discard, Now: time.Now}), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for dir, file := range folders {
		if _, err := os.Stat(filepath.Join(store.RunDir("build", dir), file)); err != nil {
			t.Errorf("run folder %s lost %s: %v", dir, file, err)
		}
	}
	if !state.Stillborn(store.RunDir("build", "stillborn")) || state.Stillborn(store.RunDir("build", "copied")) {
		t.Error("the stillborn run folder is not told apart")
	}
}

// checkWorkDir lets a run work only in one of agentloop's own task worktrees
// (or where it was started, work_dir empty): any other folder a state file
// names is a usage error saying which and why.
func TestCheckWorkDir(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	stateDir := filepath.Join(repo, ".agentloop")
	wt := filepath.Join(stateDir, "worktrees", "g", "a")
	if err := os.MkdirAll(wt, 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, workDir, why string // why: "" when allowed
	}{
		{"where it was started", "", ""},
		{"a task worktree", wt, ""},
		{"a task worktree, named relative", filepath.Join(stateDir, "worktrees", "g", "x", "..", "a"), ""},
		{"outside the repository", t.TempDir(), "it is not a task worktree under"},
		{"the repository itself", repo, "it is not a task worktree under"},
		{"the worktrees folder itself", filepath.Join(stateDir, "worktrees"), "it is not a task worktree under"},
		{"out of the worktrees by ..", filepath.Join(stateDir, "worktrees", "..", "runs"), "it is not a task worktree under"},
		{"a task worktree that is gone", filepath.Join(stateDir, "worktrees", "g", "gone"), "it does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := checkWorkDir(stateDir, tt.workDir)
			if tt.why == "" {
				if err != nil {
					t.Errorf("checkWorkDir(%s) = %v, want allowed", tt.workDir, err)
				}
				return
			}
			if !isUsage(err) || !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), "refusing to run an agent there") {
				t.Errorf("checkWorkDir(%s) = %v, want a usage error saying %q", tt.workDir, err, tt.why)
			}
		})
	}
}
