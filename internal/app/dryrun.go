package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/shellword"
	"github.com/agentloop/agentloop/internal/tokens"
)

// DryRun prints (on w) the prompt the next iteration would get and its token count
// against the budget, and with -v where every effective value came from. It runs
// nothing.
func DryRun(w io.Writer, p *plan.Plan, host agent.Host) error {
	composer := p.Composer(filepath.Join(p.StateDir, "runs", p.Name))
	first := FirstStep()
	text, err := composer.Compose(first)
	if err != nil {
		return &UsageError{err}
	}
	n := tokens.Count(text)
	fmt.Fprintln(w, text)
	fmt.Fprintln(w, "---")
	for _, warning := range p.Warnings() {
		fmt.Fprintln(w, "WARNING: "+warning)
	}
	if !composer.HasTask(first) {
		unless := ""
		if len(p.Gates) > 0 {
			unless = " (only failures the baseline gates find would give it one)"
		}
		fmt.Fprintf(w, "WARNING: the agent has no task: no context was given (or the context files are empty)%s; give the task with --context FILE|TEXT\n", unless)
	}
	budget := p.Proc.Limits.TokenBudget
	switch {
	case budget > 0 && int64(n) > budget:
		fmt.Fprintf(w, "Prompt: %d tokens — WARNING: over the token budget of %d (the loop would still run)\n", n, budget)
	case budget > 0:
		fmt.Fprintf(w, "Prompt: %d tokens (token budget %d)\n", n, budget)
	default:
		fmt.Fprintf(w, "Prompt: %d tokens (no token budget set)\n", n)
	}
	argv, _ := p.Agent.Command("PROMPT", "PROMPT_FILE")
	fmt.Fprintf(w, "Agent: %s (prompt via %s)\n", shellword.Join(argv), p.Agent.PromptVia)
	for _, g := range p.Gates {
		fmt.Fprintf(w, "Gate %s: %s\n", g.Name, g.Command)
	}
	// The same check a run makes before its baseline: a run would stop here.
	preflight := p.Preflight(host)
	if preflight == nil {
		fmt.Fprintln(w, "Agents: ready (found on PATH, known settings present)")
	}
	if !p.Verbose {
		return preflight
	}
	fmt.Fprintln(w, "\nEffective configuration:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tFROM")
	for _, s := range p.Sources {
		v := s.Value
		if strings.Contains(s.Key, ".env.") || strings.HasSuffix(s.Key, ".env") {
			v = "(set; values are not shown)" // environment values can be secrets
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, v, s.From)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return preflight
}

// DryRunGraph prints (on w) what each task still to run would start, and checks, as
// a run does before its first task, that every agent and gate can start. It
// runs and writes nothing.
func DryRunGraph(ctx context.Context, w io.Writer, pr Process, o GraphOptions) error {
	plans, preflight := CheckGraph(ctx, pr, o)
	if _, ok := errors.AsType[*UsageError](preflight); ok || plans == nil && preflight != nil {
		return preflight
	}
	for _, tp := range plans {
		p := tp.Plan
		argv, _ := p.Agent.Command("PROMPT", "PROMPT_FILE")
		fmt.Fprintf(w, "Task %s: %s\n", tp.Task.ID, tp.Title)
		fmt.Fprintf(w, "  Agent: %s (prompt via %s)\n", shellword.Join(argv), p.Agent.PromptVia)
		for _, g := range p.Gates {
			fmt.Fprintf(w, "  Gate %s: %s\n", g.Name, g.Command)
		}
	}
	if len(plans) == 0 {
		fmt.Fprintln(w, "No task left to run.")
	}
	if preflight == nil {
		fmt.Fprintln(w, "Agents: ready (found on PATH, known settings present)")
	}
	return preflight
}
