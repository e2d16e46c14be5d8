package plan

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// PresetAgents is the [loop.AgentRunner] of agent presets: it runs the configured
// agent, or a fallback agent by name. Each agent run is bounded by what the run
// has left of its token and cost limits ([loop.AgentRequest.Remaining]), so crossing
// one mid-iteration ends the agent.
type PresetAgents struct {
	Runner           *agent.Runner
	Agent            agent.Preset
	Fallback         []agent.Preset
	IdleTimeout      time.Duration // an agent silent this long is ended
	CompletionMarker string
	// Sandboxes are the sandboxes the agents run in, by preset name; an agent
	// without one runs as it is.
	Sandboxes map[string]agent.Sandbox
}

// RunAgent implements [loop.AgentRunner].
func (a *PresetAgents) RunAgent(ctx context.Context, req loop.AgentRequest) (evidence.AgentResult, error) {
	preset, ok := a.preset(req.Agent)
	if !ok {
		return evidence.AgentResult{}, fmt.Errorf("fallback agent %q is not configured", req.Agent)
	}
	var deadline time.Time
	if req.Timeout > 0 && !req.Started.IsZero() {
		deadline = req.Started.Add(req.Timeout)
	}
	var onRetry func(agent.Retry)
	if req.OnRetry != nil {
		onRetry = func(r agent.Retry) { req.OnRetry(preset.Name, r) }
	}
	return a.Runner.Run(ctx, agent.Request{
		Preset: preset, Prompt: req.Prompt, Dir: req.WorkDir, IterDir: req.IterDir,
		LogPath: filepath.Join(req.IterDir, "agent.log"), Echo: req.Echo,
		CompletionMarker: a.CompletionMarker, Timeout: req.Timeout, Deadline: deadline, IdleTimeout: a.IdleTimeout,
		Limits: req.Remaining.AgentLimits(), OnRetry: onRetry, OnUsage: req.OnUsage, OnTool: req.OnTool, Sandbox: a.Sandboxes[preset.Name],
	})
}

// TranscriptUsage implements [loop.TranscriptReader]: the saved agent.log is read
// with the agent's own parser and priced as its runs are.
func (a *PresetAgents) TranscriptUsage(agentName, logPath string) evidence.Usage {
	preset, ok := a.preset(agentName)
	if !ok {
		return evidence.Usage{}
	}
	r := a.Runner
	if r == nil {
		r = &agent.Runner{}
	}
	return r.TranscriptUsage(preset, logPath)
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
