package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/ui"
)

// runProcedure is `agentloop run`.
func runProcedure(cmd *cobra.Command, d Deps, f *runFlags, name string) error {
	if f.tasks != "" {
		return runTasks(cmd, d, f)
	}
	p, err := resolvePlan(cmd, d, f, name)
	if err != nil {
		return err
	}
	if f.dryRun {
		return dryRun(d, p)
	}
	p.Args = givenFlags(cmd)
	// A prompt that cannot be composed (a missing context file, a template
	// error) is a mistake to fix before anything runs.
	if _, _, err := p.Composer(p.StateDir).Compose(loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Attempt: 1}); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	screen := newScreen(d, f, p)
	for _, w := range p.Warnings() {
		screen.Warnf("%s", w)
	}
	s, err := session.Open(process(d), p, screen, newLogger(d, f), true)
	if err != nil {
		return err
	}
	return runSession(cmd.Context(), s)
}

// runSession runs an opened session and maps how it ended to the exit code.
func runSession(ctx context.Context, s *session.Session) error {
	out, err := s.Run(ctx)
	if err != nil {
		return err
	}
	if code := statusExit(out.Status); code != ExitOK {
		return &ExitError{Code: code}
	}
	return nil
}

// process is what a session touches of this process.
func process(d Deps) session.Process {
	return session.Process{Stdout: d.Stdout, Now: d.Now, Getwd: d.Getwd}
}

// loadConfig reads every configuration tier; a problem in it is a usage error.
func loadConfig(d Deps, file string, over config.Overrides) (*config.Config, error) {
	wd, err := d.Getwd()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(config.Options{ConfigFile: file, WorkDir: wd, Getenv: d.Getenv, Flags: over})
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return cfg, nil
}

// overrides collects the flags given on the command line.
func overrides(cmd *cobra.Command, f *runFlags) config.Overrides {
	fl := cmd.Flags()
	var o config.Overrides
	if fl.Changed("max-iterations") {
		o.MaxIterations = &f.maxIterations
	}
	if fl.Changed("failure-threshold") {
		o.FailureThreshold = &f.failureThreshold
	}
	if fl.Changed("agent-cmd") {
		o.AgentCmd = &f.agentCmd
	}
	if fl.Changed("agent") {
		o.Agent = &f.agent
	}
	if fl.Changed("reviewer") {
		o.Reviewer = &f.reviewer
	}
	if fl.Changed("iteration-timeout") {
		o.IterationTimeout = &f.iterationTimeout
	}
	if fl.Changed("timeout") {
		o.Timeout = &f.timeout
	}
	if fl.Changed("max-tokens") {
		o.MaxTokens = &f.maxTokens
	}
	if fl.Changed("max-cost") {
		o.MaxCostUSD = &f.maxCost
	}
	if fl.Changed("log-format") {
		o.LogFormat = &f.logFormat
	}
	o.Context = f.contexts
	o.Gates = f.gates
	return o
}

// resolvePlan loads the configuration with the flags and resolves the named
// procedure into everything a run needs.
func resolvePlan(cmd *cobra.Command, d Deps, f *runFlags, name string) (*plan.Plan, error) {
	cfg, err := loadConfig(d, f.config, overrides(cmd, f))
	if err != nil {
		return nil, err
	}
	wd, err := d.Getwd()
	if err != nil {
		return nil, err
	}
	p, err := plan.Resolve(cfg, name, plan.Options{WorkDir: wd, Getenv: d.Getenv, Verbose: f.verbose})
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return p, nil
}

// dryRun prints the prompt the next iteration would get and its token count
// against the budget, and with -v where every effective value came from. It runs
// nothing.
func dryRun(d Deps, p *plan.Plan) error {
	composer := p.Composer(filepath.Join(p.StateDir, "runs", p.Name))
	text, tokens, err := composer.Compose(loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Attempt: 1})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	fmt.Fprintln(d.Stdout, text)
	fmt.Fprintln(d.Stdout, "---")
	for _, w := range p.Warnings() {
		fmt.Fprintln(d.Stdout, "WARNING: "+w)
	}
	budget := p.Proc.Limits.TokenBudget
	switch {
	case budget > 0 && int64(tokens) > budget:
		fmt.Fprintf(d.Stdout, "Prompt: %d tokens — WARNING: over the token budget of %d (the loop would still run)\n", tokens, budget)
	case budget > 0:
		fmt.Fprintf(d.Stdout, "Prompt: %d tokens (token budget %d)\n", tokens, budget)
	default:
		fmt.Fprintf(d.Stdout, "Prompt: %d tokens (no token budget set)\n", tokens)
	}
	argv, _ := p.Agent.Command("PROMPT", "PROMPT_FILE")
	fmt.Fprintf(d.Stdout, "Agent: %s (prompt via %s)\n", plan.ShellJoin(argv), p.Agent.PromptVia)
	for _, g := range p.Gates {
		fmt.Fprintf(d.Stdout, "Gate %s: %s\n", g.Name, g.Command)
	}
	if !p.Verbose {
		return nil
	}
	fmt.Fprintln(d.Stdout, "\nEffective configuration:")
	tw := tabwriter.NewWriter(d.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tFROM")
	for _, s := range p.Sources {
		v := s.Value
		if strings.Contains(s.Key, ".env.") || strings.HasSuffix(s.Key, ".env") {
			v = "(set; values are not shown)" // environment values can be secrets
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, v, s.From)
	}
	return tw.Flush()
}

// newScreen is what the person sees while the loop runs.
func newScreen(d Deps, f *runFlags, p *plan.Plan) *ui.Printer {
	format := f.logFormat
	if format == "" {
		format = p.LogFormat
	}
	return ui.New(ui.Options{
		Out: d.Stdout, Now: d.Now, JSON: format == "json", Quiet: f.quiet, Verbose: f.verbose,
		Terminal: d.IsTerminal(d.Stdout) && !f.verbose,
	})
}

// newLogger is the diagnostic log (stderr): warnings, or everything with -v.
func newLogger(d Deps, f *runFlags) *slog.Logger {
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(d.Stderr, opts)
	if f.logFormat == "json" {
		h = slog.NewJSONHandler(d.Stderr, opts)
	}
	return slog.New(h)
}
