package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
)

// AgentLimits bound each agent run of a loop.
type AgentLimits struct {
	IterationTimeout time.Duration // per agent run, unless the request says otherwise
	IdleTimeout      time.Duration // an agent silent this long is ended
	MaxTokens        int64         // the run's hard token limit (0: none)
	MaxCostUSD       float64       // the run's hard cost limit (0: none)
}

// PresetAgents is the [AgentRunner] of agent presets: it runs the configured
// agent, or a fallback agent by name. The run's hard token and cost limits bound
// each agent run by what is left of them, so crossing one mid-iteration ends
// the agent.
type PresetAgents struct {
	Runner           *agent.Runner
	Agent            agent.Preset
	Fallback         []agent.Preset
	Limits           AgentLimits
	CompletionMarker string
	// Spent is the run's spend before this iteration.
	Spent func() evidence.Usage
}

// RunAgent implements [AgentRunner].
func (a *PresetAgents) RunAgent(ctx context.Context, req AgentRequest) (evidence.AgentResult, error) {
	preset, ok := a.preset(req.Agent)
	if !ok {
		return evidence.AgentResult{}, fmt.Errorf("fallback agent %q is not configured", req.Agent)
	}
	l := a.Limits
	timeout := l.IterationTimeout
	if req.Timeout > 0 {
		timeout = req.Timeout
	}
	var deadline time.Time
	if timeout > 0 && !req.Started.IsZero() {
		deadline = req.Started.Add(timeout)
	}
	var lim agent.Limits
	var spent evidence.Usage
	if a.Spent != nil {
		spent = a.Spent()
	}
	if l.MaxTokens > 0 && spent.TokensKnown {
		lim.MaxTokens = max(l.MaxTokens-spent.TotalTokens(), 1)
	}
	if l.MaxCostUSD > 0 && spent.CostKnown {
		lim.MaxCostUSD = max(l.MaxCostUSD-spent.CostUSD, 0.0001)
	}
	return a.Runner.Run(ctx, agent.Request{
		Preset: preset, Prompt: req.Prompt, Dir: req.WorkDir, IterDir: req.IterDir,
		LogPath: filepath.Join(req.IterDir, "agent.log"), Echo: req.Echo,
		CompletionMarker: a.CompletionMarker, Timeout: timeout, Deadline: deadline, IdleTimeout: l.IdleTimeout,
		Limits: lim,
	})
}

// preset is the agent of a name: the configured one for "", else a fallback
// agent of that name (the last one configured), else the configured one when
// the name is its own.
func (a *PresetAgents) preset(name string) (agent.Preset, bool) {
	if name == "" {
		return a.Agent, true
	}
	for i := len(a.Fallback) - 1; i >= 0; i-- {
		if a.Fallback[i].Name == name {
			return a.Fallback[i], true
		}
	}
	return a.Agent, name == a.Agent.Name
}
