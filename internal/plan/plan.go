package plan

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/diff"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/prompt"
	"github.com/agentloop/agentloop/internal/state"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// Plan is everything a run needs, resolved from the configuration tiers and the
// flags once per session.
type Plan struct {
	Name     string // run name (the procedure's, or the task's)
	WorkDir  string
	StateDir string
	Task     string // what the run is asked to do, for the reviewer and reports

	Proc     config.Procedure // prompt parts, limits, escalation, git, policy
	Agent    agent.Preset
	Fallback []agent.Preset
	Reviewer *agent.Preset
	Gates    []GateSpec
	Scope    []string // globs of the files in scope (a task's), for the scope-creep detector
	Prices   map[string]config.Price
	Sources  []config.Source
	Args     []string // the flags the run was started with, recorded for resume

	Verbose   bool
	LogFormat string
	KeepAwake bool // keep the machine from sleeping while the loop runs (keep_awake:)
	Decider   state.Decider
	// Notify is where the run's notifications go (the configuration's
	// notify: and --notify).
	Notify target.Config

	// RateLimitWait is how long one iteration waits out rate limits before the
	// next fallback agent takes over or the run stops; BackoffBase is the first
	// wait of the exponential backoff when the CLI gives no reset time.
	RateLimitWait time.Duration
	BackoffBase   time.Duration
	// KillGrace is how long a process ended by a timeout or a signal gets
	// between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// Home is agentloop's $HOME, which a sandbox hides.
	Home string

	// Budgets are the caps every loop of the user shares (On: the run
	// reserves and settles each iteration in the ledger at LedgerPath; the
	// Temporal engine's, in its ledger workflow, only when Given).
	Budgets    config.Budgets
	LedgerPath string
	// Graph is the task graph the run is the loop of a task of ("" for
	// none): the ledger sums its spend by graph.
	Graph string
	// Keys are who each agent charges in the ledger, by name ("" the
	// configured agent); ReviewerKey is the reviewer's.
	Keys        map[string]budget.Key
	ReviewerKey budget.Key
	// BudgetPoll is how often a loop parked by a soft limit looks at the
	// ledger again (AGENTLOOP_BUDGET_POLL; 0: 5s).
	BudgetPoll time.Duration
	// ConfigFiles are the configuration files read, for messages.
	ConfigFiles []string
	// Issues are how a run taken from a tracker issue runs (issues:);
	// Issue is the issue this run is taken from (nil: none), which its
	// state keeps.
	Issues config.Issues
	Issue  *state.Issue

	secrets *redact.Redactor // Secrets, made once
}

// Secrets is the redactor of every process the plan starts: the secret values
// of agentloop's environment and of the environments the configuration gives
// the agent, its fallbacks, the reviewer and the gates, so that a secret one
// of them knows is redacted from what any of them prints (an agent that reads
// a gate's token and prints it too).
func (p *Plan) Secrets() *redact.Redactor {
	if p.secrets != nil {
		return p.secrets
	}
	envs := [][]string{os.Environ()}
	presets := append([]agent.Preset{p.Agent}, p.Fallback...)
	if p.Reviewer != nil {
		presets = append(presets, *p.Reviewer)
	}
	for _, a := range presets {
		for k, v := range a.Env {
			envs = append(envs, []string{k + "=" + v})
		}
	}
	for _, g := range p.Gates {
		envs = append(envs, g.Env)
	}
	p.secrets = redact.New(envs...)
	return p.secrets
}

// redactGates redacts the secrets of the gates' command lines as written
// (Command: what the state, the history, the reports and the prompt show; a
// literal token in `curl -H "Authorization: token …"`), leaving what runs
// (Argv) whole.
func (p *Plan) redactGates() {
	for i := range p.Gates {
		p.Gates[i].Command = p.Secrets().String(p.Gates[i].Command)
	}
}

// Spec is the loop's view of the plan.
func (p *Plan) Spec() state.Spec {
	return state.Spec{
		Name: p.Name, Procedure: p.Proc.Name, Task: p.TaskText(), Limits: p.Proc.Limits.Limits,
		Told:     p.told(),
		HasGates: len(p.Gates) > 0, HasReviewer: p.Reviewer != nil,
		Baseline: p.Proc.Baseline && len(p.Gates) > 0, Decider: p.Decider, Shared: p.Budgets.On,
	}
}

// told is the task as the run was told it, as its prompt has it: the task's
// own text (an issue's, a graph task's) and its context. It decides which
// failures are the run's ([state.Spec.Told]).
func (p *Plan) told() string {
	return strings.TrimSpace(p.Task + "\n\n" + prompt.ContextText(p.Proc.Prompt.Context, prompt.FileReader(p.WorkDir)))
}

// TaskText is what the run is asked to do, for the reviewer and reports: a
// task's text, else the procedure's description.
func (p *Plan) TaskText() string {
	if p.Task != "" {
		return p.Task
	}
	return p.Proc.Description
}

// Warnings are the plan's likely mistakes: a reviewer that is the implementer
// itself; a required gate whose failed tests cannot be run again by name
// (npm test, make test, a script), so that its flaky check runs nothing
// unless told otherwise. (An agent given no task is found when the first
// prompt is composed, once the baseline has shown whether anything fails.)
func (p *Plan) Warnings() []string {
	var w []string
	if p.Reviewer != nil && p.Reviewer.Binary == p.Agent.Binary && slices.Equal(p.Reviewer.Args, p.Agent.Args) {
		w = append(w, fmt.Sprintf("the reviewer is the implementer's own agent (%s); a different one catches more (--reviewer NAME)", p.Agent.Name))
	}
	for _, g := range p.Gates {
		if !g.Required || (g.Rerun != "" && g.Rerun != gate.RerunFailed) {
			continue
		}
		if err := gate.RerunWarning(g.Argv); err != nil {
			w = append(w, fmt.Sprintf("gate %s: a failed test will not be run again to tell a flaky one: %v. "+
				"Put the test runner itself in run:, or set rerun: whole (the whole command again) or rerun: off on the gate", g.Name, err))
		}
	}
	return w
}

// Composer is the prompt composer of the plan's procedure; runDir is the run
// folder the agent is pointed to for full logs.
func (p *Plan) Composer(runDir string) *PromptComposer {
	var gates []string
	for _, g := range p.Gates {
		gates = append(gates, g.Command)
	}
	return &PromptComposer{
		Parts: p.Proc.Prompt, Procedure: p.Proc.Name, MaxIterations: p.Proc.Limits.MaxIterations,
		WorkDir: p.WorkDir, LogDir: runDir, Gates: gates, Task: p.Task,
	}
}

// AgentRunner runs the plan's agent, or a fallback agent by name; spent is the
// run's spend before each iteration, which the hard limits are counted down by.
func (p *Plan) AgentRunner(log *slog.Logger) *PresetAgents {
	prices := agent.DefaultPrices()
	if len(p.Prices) > 0 && prices.Models == nil {
		prices.Models = map[string]agent.Price{}
	}
	for model, pr := range p.Prices {
		prices.Models[model] = agent.Price{Input: pr.Input, Output: pr.Output, CacheRead: pr.CacheRead, CacheWrite: pr.CacheWrite}
	}
	a := &PresetAgents{
		Runner:      &agent.Runner{Prices: &prices, Logger: log, Grace: p.KillGrace, Redact: p.Secrets()},
		Agent:       p.Agent,
		Fallback:    p.Fallback,
		IdleTimeout: p.Proc.Limits.IdleTimeout, CompletionMarker: p.Proc.CompletionMarker,
	}
	for _, ag := range append([]agent.Preset{p.Agent}, p.Fallback...) {
		if sb := p.AgentSandbox(ag); sb != nil {
			if a.Sandboxes == nil {
				a.Sandboxes = map[string]agent.Sandbox{}
			}
			a.Sandboxes[ag.Name] = sb
		}
	}
	return a
}

// ReviewerAgent asks the plan's reviewer; nil when the plan has none.
func (p *Plan) ReviewerAgent(log *slog.Logger) loop.Reviewer {
	if p.Reviewer == nil {
		return nil
	}
	r := &ReviewerAgent{
		Runner: &agent.Runner{Logger: log, Grace: p.KillGrace, Redact: p.Secrets()}, Agent: *p.Reviewer,
		Timeout: p.Proc.Limits.IterationTimeout, IdleTimeout: p.Proc.Limits.IdleTimeout, WorkDir: p.WorkDir,
	}
	if sb := p.AgentSandbox(*p.Reviewer); sb != nil {
		r.Sandbox = sb
	}
	if rv := p.Proc.Reviewer; rv != nil {
		r.MaxRounds, r.Template = rv.MaxRounds, rv.Prompt
	}
	return r
}

// GateRunner runs the plan's gates; nil when the plan has none.
func (p *Plan) GateRunner() loop.GateRunner {
	return p.gateRunner(p.Gates)
}

// MergeGateRunner runs the plan's required gates, those a task's merged
// result must pass; nil when the plan has none. Like [Plan.GateRunner] it
// redacts the plan's secrets and runs in the plan's sandbox.
func (p *Plan) MergeGateRunner() loop.GateRunner {
	var req []GateSpec
	for _, s := range p.Gates {
		if s.Required {
			req = append(req, s)
		}
	}
	return p.gateRunner(req)
}

// gateRunner is the one runner of gates: every gate of a run (its baseline,
// its iterations, their flaky checks, a graph's merge) runs through one it
// makes, with the plan's redaction, sandbox and kill grace.
func (p *Plan) gateRunner(specs []GateSpec) loop.GateRunner {
	if len(specs) == 0 {
		return nil
	}
	g := &ProcGates{Specs: specs, Grace: p.KillGrace, Redact: p.Secrets()}
	if p.Proc.Sandbox.Gates {
		g.Sandbox = p.GateSandbox()
	}
	return g
}

// AgentSandbox is the sandbox agent a runs in: the procedure's (sandbox:,
// --sandbox) with what the agent's own sandbox: adds; nil when it runs as it
// is.
func (p *Plan) AgentSandbox(a agent.Preset) *sandbox.Sandbox {
	if !p.Proc.Sandbox.Agents && a.Sandboxed == nil {
		return nil
	}
	return p.SandboxFor(a)
}

// SandboxFor is the sandbox agent a would run in (see [Plan.AgentSandbox]),
// whether or not it does.
func (p *Plan) SandboxFor(a agent.Preset) *sandbox.Sandbox {
	cfg := p.Proc.Sandbox.Config
	if a.Sandboxed != nil {
		cfg = cfg.Merge(*a.Sandboxed)
	}
	return p.newSandbox(a.Sandbox, cfg)
}

// GateSandbox is the sandbox the gates would run in (sandbox: {gates: true}).
func (p *Plan) GateSandbox() *sandbox.Sandbox {
	return p.newSandbox(policy.Needs{}, p.Proc.Sandbox.Config)
}

func (p *Plan) newSandbox(needs policy.Needs, cfg policy.Config) *sandbox.Sandbox {
	return sandbox.New(needs, cfg, p.StateDir, p.Home)
}

// Sandboxed reports whether an agent or a gate of the plan runs in a sandbox.
func (p *Plan) Sandboxed() bool {
	if p.Proc.Sandbox.Agents || p.Proc.Sandbox.Gates || p.Agent.Sandboxed != nil {
		return true
	}
	for _, f := range p.Fallback {
		if f.Sandboxed != nil {
			return true
		}
	}
	return p.Reviewer != nil && p.Reviewer.Sandboxed != nil
}

// Preflight checks, before anything runs or any state is written, that every
// agent the plan may start (the agent, its fallbacks, the reviewer) can start:
// its program is found and the settings it is known to need are set; and that
// every gate's program is found. The error joins one *agent.SetupError per agent
// and one *evidence.StartError per gate that cannot.
func (p *Plan) Preflight(h agent.Host) error {
	errs := []error{agent.Preflight(h, "agent", p.Agent)}
	for _, f := range p.Fallback {
		errs = append(errs, agent.Preflight(h, "fallback agent", f))
	}
	if p.Reviewer != nil {
		errs = append(errs, agent.Preflight(h, "reviewer", *p.Reviewer))
	}
	for _, g := range p.Gates {
		errs = append(errs, gatePreflight(h, p.WorkDir, g))
	}
	if p.Sandboxed() && h.Sandbox != nil {
		// Never run unsandboxed what was asked to run in a sandbox.
		if err := h.Sandbox(); err != nil {
			errs = append(errs, fmt.Errorf("--sandbox: %w", err))
		} else {
			// The sandbox each agent gets, set up once: one it cannot have is
			// a configuration error now, not the agent's failure later.
			errs = append(errs, trySandbox(h, "agent", p.Agent, p.AgentSandbox(p.Agent), p.WorkDir))
			for _, f := range p.Fallback {
				errs = append(errs, trySandbox(h, "fallback agent", f, p.AgentSandbox(f), p.WorkDir))
			}
			if p.Reviewer != nil {
				errs = append(errs, trySandbox(h, "reviewer", *p.Reviewer, p.AgentSandbox(*p.Reviewer), p.WorkDir))
			}
			for _, g := range p.Gates {
				if p.Proc.Sandbox.Gates && len(g.Argv) > 0 {
					errs = append(errs, trySandbox(h, "gate", agent.Preset{Name: g.Name, Binary: g.Argv[0]}, p.GateSandbox(), filepath.Join(p.WorkDir, g.Dir)))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// trySandbox is [agent.TrySandbox] for a sandbox that may be nil, the agent
// running as it is: nothing to try (an interface holding a nil *Sandbox is
// not nil).
func trySandbox(h agent.Host, role string, a agent.Preset, sb *sandbox.Sandbox, dir string) error {
	if sb == nil {
		return nil
	}
	return agent.TrySandbox(h, role, a, sb, dir)
}

// gatePreflight finds a gate's program the way it will be started: a path
// relative to the gate's folder, a bare name on PATH; for a shell command line,
// the programs [ShellPrograms] can name for sure. The rest of a shell command is
// checked when it first runs (the shell's exit 127 or 126).
func gatePreflight(h agent.Host, workDir string, g GateSpec) error {
	if len(g.Argv) == 0 || h.LookPath == nil {
		return nil
	}
	fail := func(reason string) error {
		return &evidence.StartError{Gate: g.Name, Command: g.Command, Reason: reason}
	}
	if len(g.Argv) == 3 && g.Argv[0] == "sh" && g.Argv[1] == "-c" {
		for _, prog := range ShellPrograms(g.Argv[2]) {
			if _, err := h.LookPath(prog); err != nil {
				return fail("command not found: " + prog)
			}
		}
		return nil
	}
	prog := g.Argv[0]
	if !strings.Contains(prog, "/") {
		if _, err := h.LookPath(prog); err != nil {
			return fail("command not found: " + prog)
		}
		return nil
	}
	path := prog
	if !filepath.IsAbs(path) {
		path = filepath.Join(workDir, g.Dir, path)
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fail("command not found: " + prog)
	case fi.IsDir() || fi.Mode()&0o111 == 0:
		return fail("not executable: " + prog)
	}
	return nil
}

// Parts are the parts of the plan's run that an engine runs its steps with
// (engine.New): the agents, gates, reviewer and prompt composer it resolves,
// logging to log and keeping the prompts under runDir, and the settings of
// the run they obey.
func (p *Plan) Parts(log *slog.Logger, runDir string) loop.Parts {
	parts := loop.Parts{
		Name: p.Name, WorkDir: p.WorkDir, Task: p.TaskText(),
		Agent: p.AgentRunner(log), Gates: p.GateRunner(), Reviewer: p.ReviewerAgent(log), Prompt: p.Composer(runDir),
		RateLimitWait: p.RateLimitWait, BackoffBase: p.BackoffBase,
		TokenBudget: int(p.Proc.Limits.TokenBudget),
		Analyze: func(patch string) evidence.DiffFacts {
			return diff.Analyze(patch, diff.Options{ProtectedPaths: p.Proc.Escalation.ProtectedPaths, Scope: p.Scope})
		},
		SetAside: decide.SetAside,
	}
	parts.Git.Checkpoint, parts.Git.Commit, parts.Git.Push, parts.Git.Remote = p.Proc.Git.Checkpoint, p.Proc.Git.Commit, p.Proc.Git.Push, p.Proc.Git.Remote
	if e := p.Proc.Escalation; e.IncludeDiff {
		parts.EscalationDiffLines = e.MaxDiffLines
		if parts.EscalationDiffLines <= 0 {
			parts.EscalationDiffLines = 300
		}
	}
	for _, a := range p.Fallback {
		parts.Fallback = append(parts.Fallback, a.Name)
	}
	return parts
}
