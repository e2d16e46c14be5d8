package cli

import (
	"fmt"
	"slices"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/loop"
)

// plan is everything a run needs, resolved from the configuration tiers and the
// flags once per session.
type plan struct {
	Name     string // run name (the procedure's, or the task's)
	WorkDir  string
	StateDir string
	Task     string // what the run is asked to do, for the reviewer and reports

	Proc     config.Procedure // prompt parts, limits, escalation, git, policy
	Agent    agent.Preset
	Fallback []agent.Preset
	Reviewer *agent.Preset
	Gates    []engine.GateSpec
	Scope    []string // globs of the files in scope (a task's), for the scope-creep detector
	Prices   map[string]config.Price
	Sources  []config.Source
	Args     []string // the flags the run was started with, recorded for resume

	Verbose   bool
	LogFormat string
	Decider   loop.Decider

	// RateLimitWait is how long one iteration waits out rate limits before the
	// next fallback agent takes over or the run stops; BackoffBase is the first
	// wait of the exponential backoff when the CLI gives no reset time.
	RateLimitWait time.Duration
	BackoffBase   time.Duration
	// KillGrace is how long a process ended by a timeout or a signal gets
	// between SIGTERM and SIGKILL.
	KillGrace time.Duration
}

// spec is the loop's view of the plan.
func (p *plan) spec() loop.Spec {
	l := p.Proc.Limits
	return loop.Spec{
		Name: p.Name, Procedure: p.Proc.Name, Task: p.task(), MaxIterations: l.MaxIterations,
		FailureThreshold: l.FailureThreshold, MaxTokens: l.MaxTokens, MaxCostUSD: l.MaxCostUSD,
		MaxDuration: l.MaxDuration, IterationTimeout: l.IterationTimeout,
		HasGates: len(p.Gates) > 0, HasReviewer: p.Reviewer != nil,
		Baseline: p.Proc.Baseline && len(p.Gates) > 0, Decider: p.Decider,
	}
}

// warnings are the plan's likely mistakes: an agent given no task at all (no
// context, no task text, no gates whose failures could stand for one), and a
// reviewer that is the implementer itself.
func (p *plan) warnings() []string {
	var w []string
	if len(p.Proc.Prompt.Context) == 0 && p.Task == "" && len(p.Gates) == 0 {
		w = append(w, fmt.Sprintf("procedure %s gives the agent no task: no context and no gates; pass --context FILE|TEXT (e.g. --context TASK.md) or --gate CMD", p.Proc.Name))
	}
	if p.Reviewer != nil && p.Reviewer.Binary == p.Agent.Binary && slices.Equal(p.Reviewer.Args, p.Agent.Args) {
		w = append(w, fmt.Sprintf("the reviewer is the implementer's own agent (%s); a different one catches more (--reviewer NAME)", p.Agent.Name))
	}
	return w
}
