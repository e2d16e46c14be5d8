package plan

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/tasks"
)

// ForTask is the plan of the task t of the graph named graphName: its
// procedure from cfg, in its worktree, the task's prompt, gates and limits
// applied ([ApplyTask]); its state is kept in the repository's state folder
// stateDir.
func ForTask(cfg *config.Config, stateDir, graphName string, t tasks.Task, getenv func(string) string, verbose bool) (*Plan, error) {
	p, err := Resolve(cfg, t.Procedure, Options{WorkDir: tasks.TaskWorkTree(stateDir, graphName, t.ID), Getenv: getenv, Verbose: verbose})
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.ID, err)
	}
	p.Name, p.StateDir, p.Graph = tasks.TaskRunName(graphName, t.ID), stateDir, graphName
	if err := ApplyTask(p, t); err != nil {
		return nil, err
	}
	return p, nil
}

// Configure loads the configuration of the repository at dir with the flags
// a run recorded, the flags given now on top; it returns the flags to record
// with the run from now on. The command line provides it: flags are its.
type Configure func(dir string, recorded []string) (cfg *config.Config, args []string, err error)

// ResumeTask is the plan the run of the graph's task m resumes with,
// whichever engine runs it and whichever command resumes it (run --tasks
// again, resume GRAPH-TASK): the configuration of its graph's repository with
// the flags the run recorded (its graph's), those given now on top, and the
// task applied ([ForTask]): its procedure, prompt, context, files, gates and
// limits, in its worktree.
func ResumeTask(m tasks.Member, recorded []string, configure Configure, getenv func(string) string, verbose bool) (*Plan, error) {
	cfg, args, err := configure(m.Repo, recorded)
	if err != nil {
		return nil, err
	}
	p, err := ForTask(cfg, m.StateDir, m.Graph, m.Task, getenv, verbose)
	if err != nil {
		return nil, err
	}
	p.Args = args
	return p, nil
}

// ApplyTask puts a task's text, gates, limits and files on the plan of its
// procedure, and rebuilds the decision engine for the new limits.
func ApplyTask(p *Plan, t tasks.Task) error {
	p.Task = t.Text()
	p.Proc.Prompt.Context = append(slices.Clone(p.Proc.Prompt.Context), "Task "+t.ID+": "+t.Text())
	if len(t.Gates) > 0 {
		p.Gates = nil
		for _, tg := range t.Gates {
			required := tg.Required == nil || *tg.Required
			p.Gates = append(p.Gates, GateSpec{
				Name: tg.Name, Argv: CommandArgv(config.Command{Shell: tg.Run}), Command: tg.Run, Timeout: cmp.Or(tg.Timeout, p.Proc.Limits.GateTimeout),
				Required: required, Format: tg.Format, TolerateBaseline: tg.TolerateBaseline, Rerun: tg.Rerun,
			})
		}
	}
	p.redactGates()
	if l := t.Limits; l != nil {
		pl := &p.Proc.Limits
		setIf(&pl.MaxIterations, l.MaxIterations)
		setIf(&pl.FailureThreshold, l.FailureThreshold)
		setIf(&pl.IterationTimeout, l.IterationTimeout)
		setIf(&pl.MaxTokens, l.MaxTokens)
		setIf(&pl.MaxCostUSD, l.MaxCostUSD)
		setIf(&pl.MaxDuration, l.MaxDuration)
		setIf(&pl.TokenBudget, l.TokenBudget)
	}
	if len(t.Files) > 0 {
		p.Scope = t.Files
	}
	var err error
	p.Decider, err = NewDecider(p)
	return err
}

func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}
