package app

import (
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// ResumePlan is the plan the run whose state is st resumes with, on either
// engine: the configuration with the flags the run recorded, the flags given
// now on top (configure, in the run's work tree's repository), its procedure
// resolved in its work tree. The run of a graph's task (task non-nil) resumes
// with its graph's plan instead ([plan.ResumeTask]): its task's procedure,
// prompt, context, files, gates and limits, in its worktree. wd is where the
// command runs, the work tree of a run that recorded none.
func ResumePlan(st *state.State, task *tasks.Member, configure plan.Configure, wd string, getenv func(string) string, verbose bool) (*plan.Plan, error) {
	if task != nil {
		p, err := plan.ResumeTask(*task, st.Args, configure, getenv, verbose)
		if err != nil {
			return nil, &UsageError{Err: err} // a configuration or task file to fix
		}
		p.Name = st.Name
		return p, nil
	}
	cfg, args, err := configure(wd, st.Args)
	if err != nil {
		return nil, err
	}
	p, err := plan.Resolve(cfg, st.Procedure, plan.Options{WorkDir: wd, Getenv: getenv, Verbose: verbose})
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	p.Name, p.Args = st.Name, args
	if st.WorkDir != "" {
		p.WorkDir = st.WorkDir
	}
	if st.Issue != nil { // a run taken from an issue is asked what the issue asks
		p.Task, p.Issue = st.Issue.Task, st.Issue
	}
	return p, nil
}
