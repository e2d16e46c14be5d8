package app

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/state"
)

// cleanStore is a state folder with an ended run, an escalated one with the
// folder of an earlier run beside its current one, and a run folder whose run
// is gone.
func cleanStore(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), ".agentloop")
	store := state.Store{Root: root}
	for name, st := range map[string]state.Status{"done": state.StatusSucceeded, "esc": state.StatusEscalated} {
		if err := store.Save(&state.State{Version: state.StateVersion, Name: name, RunID: "r2", Status: st}); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"runs/done/r2", "runs/esc/r1", "runs/esc/r2", "runs/orphan/r1"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func names(items []CleanItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Kind+" "+it.Name)
	}
	slices.Sort(out)
	return out
}

func TestCleanKeepsWhatMayBeResumed(t *testing.T) {
	t.Parallel()
	root := cleanStore(t)
	p, err := PlanClean(t.Context(), CleanOptions{StateDir: root})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run done", "run folder .agentloop/runs/esc/r1", "run folder .agentloop/runs/orphan"}
	if got := names(p.Remove); !slices.Equal(got, want) {
		t.Errorf("remove %q, want %q", got, want)
	}
	if got := names(p.Keep); !slices.Equal(got, []string{"run esc"}) {
		t.Errorf("keep %q, want the escalated run", got)
	}
	// runs/esc/r1 holds no state: a run killed before its first save.
	for _, it := range p.Remove {
		if it.Name == ".agentloop/runs/esc/r1" && it.Note != "an earlier run of esc, stopped before it saved its first state" {
			t.Errorf("the stillborn run folder's note: %q", it.Note)
		}
	}
	// Listing removed nothing.
	if _, err := os.Stat(filepath.Join(root, "runs", "done")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(t.Context()); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"state/done.json": false, "runs/done": false, "runs/orphan": false, "runs/esc/r1": false,
		"state/esc.json": true, "runs/esc/r2": true, "state/done.lock": false,
	} {
		_, err := os.Stat(filepath.Join(root, path))
		if got := err == nil; got != want {
			t.Errorf("%s exists: %v, want %v", path, got, want)
		}
	}
}

func TestCleanAllAndNamed(t *testing.T) {
	t.Parallel()
	for _, o := range []CleanOptions{{All: true}, {Names: []string{"esc"}}} {
		root := cleanStore(t)
		o.StateDir = root
		p, err := PlanClean(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(names(p.Remove), "run esc") || len(p.Keep) != 0 {
			t.Errorf("%+v: remove %q, keep %q; want the escalated run removed", o, names(p.Remove), names(p.Keep))
		}
	}
	if _, err := PlanClean(t.Context(), CleanOptions{StateDir: cleanStore(t), Names: []string{"nope"}}); err == nil {
		t.Error("an unknown name is no error")
	}
}

// TestCleanEngineRuns: the runs another engine holds, which have no state
// file here, are weighed by how they stand there: a live run's folder and
// its task worktree are kept, an ended run's go, a resumable one's current
// folder is kept (its earlier one goes) unless --all, and a folder of a run
// neither here nor there goes.
func TestCleanEngineRuns(t *testing.T) {
	t.Parallel()
	engine := []state.EngineRun{
		{Name: "live", RunID: "r1", Live: true},
		{Name: "ended", RunID: "r1", Status: state.StatusCompleted},
		{Name: "esc", RunID: "r2", Status: state.StatusEscalated},
		{Name: "g-live", RunID: "r1", Live: true},
		{Name: "g-ended", RunID: "r1", Status: state.StatusSucceeded},
	}
	mk := func(t *testing.T) string {
		root := filepath.Join(t.TempDir(), ".agentloop")
		for _, d := range []string{"runs/live/r1", "runs/ended/r1", "runs/esc/r1", "runs/esc/r2", "runs/gone/r1", "runs/g-live/r1", "runs/g-ended/r1", "worktrees/g/live", "worktrees/g/ended"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	for _, tt := range []struct {
		all              bool
		remove, keep     []string
		exists, notExist []string
	}{
		{
			remove: []string{"run folder .agentloop/runs/ended", "run folder .agentloop/runs/esc/r1", "run folder .agentloop/runs/g-ended", "run folder .agentloop/runs/gone", "worktree .agentloop/worktrees/g/ended"},
			keep:   []string{"run esc", "run g-live", "run live"},
			exists: []string{"runs/live/r1", "runs/esc/r2", "runs/g-live/r1", "worktrees/g/live"}, notExist: []string{"runs/ended", "runs/esc/r1", "runs/gone", "worktrees/g/ended"},
		},
		{
			all:    true,
			remove: []string{"run folder .agentloop/runs/ended", "run folder .agentloop/runs/esc", "run folder .agentloop/runs/g-ended", "run folder .agentloop/runs/gone", "worktree .agentloop/worktrees/g/ended"},
			keep:   []string{"run g-live", "run live"},
			exists: []string{"runs/live/r1", "worktrees/g/live"}, notExist: []string{"runs/esc"},
		},
	} {
		root := mk(t)
		p, err := PlanClean(t.Context(), CleanOptions{StateDir: root, Engine: engine, All: tt.all})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(p.Remove); !slices.Equal(got, tt.remove) {
			t.Errorf("all=%v: remove %q, want %q", tt.all, got, tt.remove)
		}
		if got := names(p.Keep); !slices.Equal(got, tt.keep) {
			t.Errorf("all=%v: keep %q, want %q", tt.all, got, tt.keep)
		}
		if _, err := p.Apply(t.Context()); err != nil {
			t.Fatal(err)
		}
		for _, path := range tt.exists {
			if _, err := os.Stat(filepath.Join(root, path)); err != nil {
				t.Errorf("all=%v: %s removed", tt.all, path)
			}
		}
		for _, path := range tt.notExist {
			if _, err := os.Stat(filepath.Join(root, path)); err == nil {
				t.Errorf("all=%v: %s left", tt.all, path)
			}
		}
	}
}

// TestCleanMarkedRuns: the runs the state folder marks as another engine's
// (state.Store.MarkEngine) are left whole, named, when that engine was not
// asked, even with --all; a local state of the name says instead. Asked,
// they are weighed by its answer: one it no longer has goes with its mark.
func TestCleanMarkedRuns(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name         string
		o            CleanOptions
		remove, keep []string
		marked       []string // marked names left after the clean
	}{
		{name: "not asked", o: CleanOptions{All: true},
			remove: []string{"run done", "run esc", "run folder .agentloop/runs/orphan"},
			keep:   []string{"run theirs"}, marked: []string{"theirs"}},
		{name: "asked, it has it", o: CleanOptions{EngineAsked: true, Engine: []state.EngineRun{{Name: "theirs", RunID: "r1", Live: true}}},
			remove: []string{"run done", "run folder .agentloop/runs/esc/r1", "run folder .agentloop/runs/orphan"},
			keep:   []string{"run esc", "run theirs"}, marked: []string{"theirs"}},
		{name: "asked, it has it no more", o: CleanOptions{EngineAsked: true},
			remove: []string{"run done", "run folder .agentloop/runs/esc/r1", "run folder .agentloop/runs/orphan", "run folder .agentloop/runs/theirs"},
			keep:   []string{"run esc"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := cleanStore(t)
			store := state.Store{Root: root}
			// A marked name with a local state too: the state says (done
			// is removed), as against the server's runs.
			for _, n := range []string{"theirs", "done"} {
				if err := store.MarkEngine(n, "temporal"); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(store.RunDir("theirs", "r1"), 0o700); err != nil {
				t.Fatal(err)
			}
			o := tt.o
			o.StateDir = root
			p, err := PlanClean(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(p.Remove); !slices.Equal(got, tt.remove) {
				t.Errorf("remove %q, want %q", got, tt.remove)
			}
			if got := names(p.Keep); !slices.Equal(got, tt.keep) {
				t.Errorf("keep %q, want %q", got, tt.keep)
			}
			if _, err := p.Apply(t.Context()); err != nil {
				t.Fatal(err)
			}
			left, err := store.Engines()
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(left)); !slices.Equal(got, tt.marked) {
				t.Errorf("marked after the clean: %q, want %q", got, tt.marked)
			}
		})
	}
}

// TestCleanIssueRecords: the issue records a fleet's runs keep in the state
// folder (issues/NAME.json) are weighed as their runs: one goes once its
// issue is done (its pull request merged or closed, or agentloop's work on
// it stopped), with its run when that ended, or when its run is gone from
// the server; one whose run is live or whose pull request is open is kept,
// with what its run left here (its worktree), even with --all. Unasked, the
// server's runs are not known: a record keeps its run whole unless its issue
// is done. A local run's state whose pull request is open is kept too.
func TestCleanIssueRecords(t *testing.T) {
	t.Parallel()
	records := map[string]state.Issue{
		"issue-1": {Ref: "acme/tool#1", PR: 11, PRURL: "https://example.test/pull/11", Ended: "merged"},
		"issue-2": {Ref: "acme/tool#2", PR: 12, PRURL: "https://example.test/pull/12"},
		"issue-3": {Ref: "acme/tool#3"},
		"issue-4": {Ref: "acme/tool#4"},
		"issue-5": {Ref: "acme/tool#5"},
		"issue-6": {Ref: "acme/tool#6", PR: 16, Ended: "aborted"},
	}
	engine := []state.EngineRun{
		{Name: "issue-1", RunID: "r1", Status: state.StatusCompleted},
		{Name: "issue-2", RunID: "r1", Status: state.StatusCompleted},
		{Name: "issue-4", RunID: "r1", Live: true},
		{Name: "issue-5", RunID: "r1", Status: state.StatusCompleted},
		{Name: "issue-6", RunID: "r1", Status: state.StatusCompleted},
	}
	rec := func(n string) string { return "issue record .agentloop/issues/" + n + ".json" }
	for _, tt := range []struct {
		name         string
		o            CleanOptions
		remove, keep []string
	}{
		{name: "asked", o: CleanOptions{EngineAsked: true, Engine: engine},
			remove: []string{rec("issue-1"), rec("issue-3"), rec("issue-5"), rec("issue-6"), "run folder .agentloop/runs/issue-1", "worktree .agentloop/worktrees/issue/1"},
			keep:   []string{rec("issue-2"), "run issue-2", "run issue-4", "run local-pr", "worktree .agentloop/worktrees/issue/2"}},
		{name: "asked, all", o: CleanOptions{EngineAsked: true, Engine: engine, All: true},
			remove: []string{rec("issue-1"), rec("issue-3"), rec("issue-5"), rec("issue-6"), "run folder .agentloop/runs/issue-1", "worktree .agentloop/worktrees/issue/1"},
			keep:   []string{rec("issue-2"), "run issue-2", "run issue-4", "run local-pr", "worktree .agentloop/worktrees/issue/2"}},
		{name: "not asked", o: CleanOptions{},
			remove: []string{rec("issue-1"), rec("issue-6"), "run folder .agentloop/runs/issue-1", "worktree .agentloop/worktrees/issue/1"},
			keep:   []string{rec("issue-2"), "run issue-3", "run issue-4", "run issue-5", "run local-pr"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), ".agentloop")
			for n, r := range records {
				writeRecord(t, root, n, r)
			}
			for _, d := range []string{"runs/issue-1/r1", "runs/issue-2/r1", "worktrees/issue/1", "worktrees/issue/2"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			local := &state.State{Version: state.StateVersion, Name: "local-pr", RunID: "r1", Status: state.StatusSucceeded, Issue: &state.Issue{Ref: "acme/tool#7", PR: 17, PRURL: "https://example.test/pull/17"}}
			if err := (state.Store{Root: root}).Save(local); err != nil {
				t.Fatal(err)
			}
			o := tt.o
			o.StateDir = root
			p, err := PlanClean(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(p.Remove); !slices.Equal(got, tt.remove) {
				t.Errorf("remove %q, want %q", got, tt.remove)
			}
			if got := names(p.Keep); !slices.Equal(got, tt.keep) {
				t.Errorf("keep %q, want %q", got, tt.keep)
			}
			if _, err := p.Apply(t.Context()); err != nil {
				t.Fatal(err)
			}
			for _, it := range tt.keep {
				if n, ok := strings.CutPrefix(it, "issue record .agentloop/issues/"); ok {
					if _, err := os.Stat(filepath.Join(root, "issues", n)); err != nil {
						t.Errorf("%s removed", it)
					}
				}
			}
			for _, it := range tt.remove {
				if n, ok := strings.CutPrefix(it, "issue record .agentloop/issues/"); ok {
					if _, err := os.Stat(filepath.Join(root, "issues", n)); err == nil {
						t.Errorf("%s left", it)
					}
				}
			}
		})
	}
}

// writeRecord keeps the issue record rec of the run name in the state
// folder root, as a fleet's run keeps it.
func writeRecord(t *testing.T, root, name string, rec state.Issue) {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "issues"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(issueRecordPath(root, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
