package graph

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// Found is a graph kept in a state folder that has a task of a run's name.
type Found struct {
	tasks.Member
	State State       // the graph's state
	File  *tasks.File // its task file
}

// Find is the task of a graph kept in stateDir whose run is named name; ok is
// false when the run is no graph's task. A graph whose state or task file
// cannot be read is an error naming it, when it may hold the run.
func Find(stateDir, name string) (f Found, ok bool, err error) {
	paths, _ := filepath.Glob(StatePath(stateDir, "*"))
	for _, path := range paths {
		g := strings.TrimSuffix(filepath.Base(path), ".json")
		id, isTask := strings.CutPrefix(name, g+"-")
		if !isTask || id == "" {
			continue
		}
		st, found, perr, err := readState(stateDir, g, "")
		if err == nil && perr != nil {
			err = fmt.Errorf("its state is unreadable: %w", perr)
		}
		if err != nil {
			return Found{}, false, fmt.Errorf("run %s may be a task of graph %s: %w", name, g, err)
		}
		if !found {
			continue
		}
		repo := st.Repo
		if repo == "" {
			repo = filepath.Dir(stateDir)
		}
		st.File = filePath(repo, st.File)
		file, err := tasks.Load(st.File)
		if err != nil {
			return Found{}, false, fmt.Errorf("run %s may be a task of graph %s, whose task file cannot be read: %w", name, g, err)
		}
		t, ok := taskByID(file.Tasks, id)
		if !ok {
			continue
		}
		return Found{Member: tasks.Member{Graph: g, Repo: repo, StateDir: stateDir, Task: t}, State: st, File: file}, true, nil
	}
	return Found{}, false, nil
}

// HeldError says that a task's run cannot be resumed by itself: its loop is
// done, and what its graph waits for is not the loop's to do.
type HeldError struct {
	Run  string
	Why  string // how the graph holds it
	Next string // what finishes it
	// Retry: running its graph again is what finishes it (its merge is
	// tried again), with nothing for a person to do first.
	Retry bool
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("run %s is done, but its graph holds it: %s; %s", e.Run, e.Why, e.Next)
}

// ErrGuidanceNeeded says that a task held for its gates on the merged result
// is resumed only with guidance.
var ErrGuidanceNeeded = errors.New("its required gates fail on the merged result: resume it with --guidance")

// AwaitsGuidance says whether the task whose run stands at st, its outcome in
// its graph o, waits for a person's guidance: its required gates failed on
// the merged result and its loop has not run since (a loop resumed with
// guidance and done again made more iterations than o counts). Running its
// graph again leaves such a task escalated, its merge not tried again (its
// branch holds the merged result that failed); resumed with guidance, its
// loop goes on ([Hold]). Both engines ask it.
func AwaitsGuidance(st *state.State, o tasks.Outcome) bool {
	done := st.Status == state.StatusSucceeded || st.Status == state.StatusCompleted
	return o.Unmerged == tasks.MergeGates && done && st.TotalIterations <= o.Iterations
}

// Hold applies to the state st of the run of a task (outcome o in its graph)
// the rule both engines resume it by, before the run's own rules: a task
// whose required gates fail on the merged result is escalated — it waits for
// guidance ([AwaitsGuidance]), and resumed with some (guided) its loop starts
// from that merged result in its worktree, with the failure as its feedback
// and no checkpoint from before the merge to roll back to; a task whose merge
// conflicts or was refused, or whose loop is done again since its gates
// failed on the merged result, is not its loop's to finish (a *[HeldError]
// saying what does). Any other run is left as it is.
func Hold(st *state.State, o tasks.Outcome, c Commands, guided bool) error {
	name := st.Name
	if st.Status != state.StatusSucceeded && st.Status != state.StatusCompleted {
		return nil // its loop is not done (resumed since): its own rules apply
	}
	switch o.Unmerged {
	case tasks.MergeGates:
		if !AwaitsGuidance(st, o) {
			return &HeldError{Run: name, Why: "its loop is done again since its required gates failed on the merged result",
				Next: "its merge is tried again by: " + c.Run(), Retry: true}
		}
		if !guided {
			return fmt.Errorf("run %s: %w (the merged result is in its worktree): %s", name, ErrGuidanceNeeded, c.Resume(name))
		}
		st.Status, st.Reason = state.StatusEscalated, o.Reason
		st.Feedback = o.Reason
		st.Best = nil
		return nil
	case tasks.MergeConflict, tasks.MergeRefused:
		return &HeldError{Run: name, Why: o.Reason, Next: c.next(name, o)}
	}
	return nil
}

// filePath is the task file a graph's state names, which a state kept before
// it was recorded absolute names relative to the repository.
func filePath(repo, file string) string {
	if file == "" || filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(repo, file)
}
