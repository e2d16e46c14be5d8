package graph

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// TaskPlan is the plan of the task t of the graph: its procedure from cfg, in
// its worktree, the task's prompt, gates and limits applied; its state is kept
// in the repository's state folder stateDir.
func TaskPlan(cfg *config.Config, stateDir, graph string, t tasks.Task, getenv func(string) string, verbose bool) (*plan.Plan, error) {
	p, err := plan.Resolve(cfg, t.Procedure, plan.Options{WorkDir: TaskWorkTree(stateDir, graph, t.ID), Getenv: getenv, Verbose: verbose})
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.ID, err)
	}
	p.Name, p.StateDir, p.Graph = TaskRunName(graph, t.ID), stateDir, graph
	if err := plan.ApplyTask(p, t); err != nil {
		return nil, err
	}
	return p, nil
}

// RunOver reports whether the run of a task, found in st when its graph
// resumes, is over: succeeded, completed or escalated, it is not run again
// (its work is committed and merged back, or waits for a human); interrupted
// or aborted, it continues from st.
func RunOver(st *state.State) bool {
	return st.Status.Ended() && st.Status != state.StatusInterrupted && st.Status != state.StatusAborted
}

// Verified is the checkpoint on which the loop of a task, its run ended in st,
// found its required gates passing: its last, when it succeeded; "" when it
// did not (completed, with no evidence to judge by or by a person's accept;
// or not done). A merged result of
// that very tree needs no second run of the gates ([Merger.Merge]); any other
// does, whatever the run's status says.
func Verified(st *state.State) string {
	if st.Status != state.StatusSucceeded {
		return ""
	}
	return st.Tree
}

// OutcomeOf is how a task whose run ended in st stands in its graph.
func OutcomeOf(st *state.State, branch string) tasks.Outcome {
	o := tasks.Outcome{Reason: st.Reason, Iterations: st.TotalIterations, Usage: st.Spend.Total(), Branch: branch}
	switch st.Status {
	case state.StatusSucceeded:
		o.State = tasks.StateSucceeded
	case state.StatusCompleted:
		o.State = tasks.StateCompleted
	case state.StatusEscalated:
		o.State = tasks.StateEscalated
	case state.StatusInterrupted:
		o.State = tasks.StateInterrupted
	default:
		o.State = tasks.StateFailed
	}
	return o
}

// Member is a task of a graph, as the run of the task knows it: its plan is
// rebuilt from it ([ResumePlan]).
type Member struct {
	Graph    string     // the graph's name
	Repo     string     // the repository the graph runs in
	StateDir string     // the repository's state folder
	Task     tasks.Task // the task, as its task file has it
}

// Configure loads the configuration of the repository at dir with the flags
// a run recorded, the flags given now on top; it returns the flags to record
// with the run from now on. The command line provides it: flags are its.
type Configure func(dir string, recorded []string) (cfg *config.Config, args []string, err error)

// ResumePlan is the plan the run of the task m resumes with, whichever engine
// runs it and whichever command resumes it (run --tasks again, resume
// GRAPH-TASK): the configuration of its graph's repository with the flags the
// run recorded (its graph's), those given now on top, and the task applied
// ([TaskPlan]): its procedure, prompt, context, files, gates and limits, in
// its worktree.
func ResumePlan(m Member, recorded []string, configure Configure, getenv func(string) string, verbose bool) (*plan.Plan, error) {
	cfg, args, err := configure(m.Repo, recorded)
	if err != nil {
		return nil, err
	}
	p, err := TaskPlan(cfg, m.StateDir, m.Graph, m.Task, getenv, verbose)
	if err != nil {
		return nil, err
	}
	p.Args = args
	return p, nil
}
