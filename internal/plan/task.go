package plan

import (
	"cmp"
	"slices"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/tasks"
)

// ApplyTask puts a task's text, gates, limits and files on the plan of its
// procedure, and rebuilds the decision engine for the new limits.
func ApplyTask(p *Plan, t tasks.Task) error {
	p.Task = t.Text()
	p.Proc.Prompt.Context = append(slices.Clone(p.Proc.Prompt.Context), "Task "+t.ID+": "+t.Text())
	if len(t.Gates) > 0 {
		p.Gates = nil
		for _, tg := range t.Gates {
			required := tg.Required == nil || *tg.Required
			p.Gates = append(p.Gates, engine.GateSpec{
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
