package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/prompt"
	"github.com/agentloop/agentloop/internal/review"
)

// agentRunner runs the plan's agent, or a fallback agent by name, for the engine.
// The run's hard token and cost limits bound each agent run by what is left of
// them, so crossing one mid-iteration ends the agent.
type agentRunner struct {
	r      *agent.Runner
	p      *plan
	byName map[string]agent.Preset
	spent  func() evidence.Usage // the run's spend before this iteration
}

func newAgentRunner(p *plan, log *slog.Logger, spent func() evidence.Usage) *agentRunner {
	prices := agent.DefaultPrices()
	if len(p.Prices) > 0 && prices.Models == nil {
		prices.Models = map[string]agent.Price{}
	}
	for model, pr := range p.Prices {
		prices.Models[model] = agent.Price{Input: pr.Input, Output: pr.Output, CacheRead: pr.CacheRead, CacheWrite: pr.CacheWrite}
	}
	a := &agentRunner{
		r:      &agent.Runner{Prices: &prices, Logger: log, Grace: p.KillGrace},
		p:      p,
		byName: map[string]agent.Preset{p.Agent.Name: p.Agent},
		spent:  spent,
	}
	for _, f := range p.Fallback {
		a.byName[f.Name] = f
	}
	return a
}

// RunAgent implements [engine.AgentRunner].
func (a *agentRunner) RunAgent(ctx context.Context, req engine.AgentRequest) (evidence.AgentResult, error) {
	preset := a.p.Agent
	if req.Agent != "" {
		p, ok := a.byName[req.Agent]
		if !ok {
			return evidence.AgentResult{}, fmt.Errorf("fallback agent %q is not configured", req.Agent)
		}
		preset = p
	}
	l := a.p.Proc.Limits
	timeout := l.IterationTimeout
	if req.Timeout > 0 {
		timeout = req.Timeout
	}
	var deadline time.Time
	if timeout > 0 && !req.Started.IsZero() {
		deadline = req.Started.Add(timeout)
	}
	var lim agent.Limits
	spent := a.spent()
	if l.MaxTokens > 0 && spent.TokensKnown {
		lim.MaxTokens = max(l.MaxTokens-spent.TotalTokens(), 1)
	}
	if l.MaxCostUSD > 0 && spent.CostKnown {
		lim.MaxCostUSD = max(l.MaxCostUSD-spent.CostUSD, 0.0001)
	}
	return a.r.Run(ctx, agent.Request{
		Preset: preset, Prompt: req.Prompt, Dir: req.WorkDir, IterDir: req.IterDir,
		LogPath: filepath.Join(req.IterDir, "agent.log"), Echo: req.Echo,
		CompletionMarker: a.p.Proc.CompletionMarker, Timeout: timeout, Deadline: deadline, IdleTimeout: l.IdleTimeout,
		Limits: lim,
	})
}

// reviewer asks the reviewer agent, through the review protocol.
func newReviewer(p *plan, log *slog.Logger) engine.Reviewer {
	return &reviewerAgent{runner: &agent.Runner{Logger: log, Grace: p.KillGrace}, p: p}
}

type reviewerAgent struct {
	runner *agent.Runner
	p      *plan
}

// Review implements [engine.Reviewer]: the reviewer agent gets the task, the diff
// and the gate results and must answer with the verdict JSON; an unparseable
// answer is asked again once, then the verdict is unknown.
func (r *reviewerAgent) Review(ctx context.Context, req engine.ReviewRequest) (evidence.Review, error) {
	var usage evidence.Usage
	round := 0
	ask := func(ctx context.Context, prompt string) (string, error) {
		round++
		res, err := r.runner.Run(ctx, agent.Request{
			Preset: *r.p.Reviewer, Prompt: prompt, Dir: req.WorkDir, IterDir: req.IterDir,
			LogPath: filepath.Join(req.IterDir, fmt.Sprintf("review-%d.log", round)),
			Timeout: r.p.Proc.Limits.IterationTimeout, IdleTimeout: r.p.Proc.Limits.IdleTimeout,
		})
		usage = usage.Add(res.Usage)
		if err != nil {
			return "", err
		}
		if res.Failed() {
			return "", fmt.Errorf("reviewer %s failed: %s", r.p.Reviewer.Name, res.Reason)
		}
		return reviewText(res), nil
	}
	in := review.Input{Task: req.Task, Diff: req.Diff, Gates: req.Gates, Round: req.Iteration, MaxRounds: r.maxRounds()}
	if rv := r.p.Proc.Reviewer; rv != nil && !rv.Prompt.IsZero() {
		tmpl, err := rv.Prompt.Content(prompt.FileReader(r.p.WorkDir))
		if err != nil {
			return evidence.Review{}, fmt.Errorf("reviewer prompt: %w", err)
		}
		in.Template = tmpl
	}
	v, err := review.Review(ctx, ask, in)
	v.Usage = usage
	return v, err
}

func (r *reviewerAgent) maxRounds() int {
	if r.p.Proc.Reviewer != nil && r.p.Proc.Reviewer.MaxRounds > 0 {
		return r.p.Proc.Reviewer.MaxRounds
	}
	return 3
}

// reviewText is what the reviewer answered: its final result, or for a plain
// text CLI the tail of its output.
func reviewText(res evidence.AgentResult) string {
	if res.Result != "" {
		return res.Result
	}
	return res.Tail
}
