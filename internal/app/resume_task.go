package app

import (
	"errors"
	"fmt"

	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// InGraph is what the graph of a task being resumed says of it.
type InGraph struct {
	ID       string        // the task's
	Outcome  tasks.Outcome // its outcome in its graph
	Merged   bool          // its work is merged back
	Commands graph.Commands
}

// TaskRule applies to the state st of the run of a graph's task (t, what its
// graph says of it) the rules both engines resume it by, before the run's
// own: a merged task has nothing of its own to resume; an answer to an
// escalation (settle: --accept, --abort) is the run's to take; a task its
// graph holds for its merge is resumed as [graph.Hold] says, or not at all
// (a task held for its gates on the merged result, resumed without
// guidance, is a [UsageError]); a task whose loop is done and that its graph
// does not hold (the graph stopped before merging it: a kill, Ctrl-C) has no
// loop left to give guidance to. goOn: the task's graph goes on, as 'run
// --tasks' again does (merging the task, running the tasks after it), and
// say, when not empty, is what to tell the person first. Otherwise the run's
// own rules apply ([Session.Resume]).
func TaskRule(st *state.State, t InGraph, guidance string, settle bool) (goOn bool, say string, err error) {
	notNeeded := func(said string) string {
		if guidance == "" {
			return ""
		}
		return said + ": the guidance is not needed"
	}
	if t.Merged {
		said := "Task " + t.ID + " is already merged"
		if guidance != "" {
			said += ": the guidance is not needed"
		}
		return true, said, nil
	}
	if settle {
		return false, "", nil
	}
	if err := graph.Hold(st, t.Outcome, t.Commands, guidance != ""); err != nil {
		if he, ok := errors.AsType[*graph.HeldError](err); ok && he.Retry {
			// Done again since its merge failed its gates (its graph
			// stopped before trying it again): the graph goes on.
			say := notNeeded("Run " + st.Name + " is done again")
			if say != "" {
				say += "; its merge is tried again"
			}
			return true, say, nil
		}
		if errors.Is(err, graph.ErrGuidanceNeeded) {
			return false, "", &UsageError{Err: err}
		}
		return false, "", err
	}
	if !Resumable(st) {
		return true, notNeeded(fmt.Sprintf("Run %s already %s (%s)", st.Name, st.Status, st.Reason)), nil
	}
	return false, "", nil
}

// Over is the answer to resuming a run that is over (succeeded or
// completed): start a new one, with engine (the flags of the engine it ran
// on; "" for the local one). nil when the run can be resumed.
func Over(st *state.State, engine string) error {
	if Resumable(st) {
		return nil
	}
	run := "agentloop run " + st.Procedure
	if engine != "" {
		run += " " + engine
	}
	return fmt.Errorf("run %s already %s (%s); start a new one with '%s'", st.Name, st.Status, st.Reason, run)
}
