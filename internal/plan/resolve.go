package plan

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/shellword"
	"github.com/agentloop/agentloop/internal/tasks"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/suggest"
)

// Options are what a plan is resolved for besides the configuration.
type Options struct {
	WorkDir string
	Getenv  func(string) string
	Verbose bool
}

// Resolve resolves one procedure of a loaded configuration for a work tree.
// Every error it returns is a mistake the person must fix in the command line,
// the configuration or the environment.
func Resolve(cfg *config.Config, name string, o Options) (*Plan, error) {
	proc, err := cfg.Procedure(name)
	if err != nil {
		return nil, err
	}
	wd := o.WorkDir
	p := &Plan{Name: proc.Name, WorkDir: wd, Proc: proc, Gates: GateSpecs(proc.Gates, proc.Limits.GateTimeout), Prices: cfg.Prices,
		Sources: cfg.Sources(proc.Name), Verbose: o.Verbose, LogFormat: cfg.LogFormat, KeepAwake: cfg.KeepAwake, Notify: cfg.Notify, Issues: cfg.Issues}
	if p.RateLimitWait, err = EnvDuration(o.Getenv, "AGENTLOOP_RATE_LIMIT_MAX_WAIT", 30*time.Minute); err != nil {
		return nil, err
	}
	if p.BackoffBase, err = EnvDuration(o.Getenv, "AGENTLOOP_BACKOFF_BASE", 5*time.Second); err != nil {
		return nil, err
	}
	if p.KillGrace, err = EnvDuration(o.Getenv, "AGENTLOOP_KILL_GRACE", 5*time.Second); err != nil {
		return nil, err
	}
	p.StateDir = StateDir(cfg, wd)
	if o.Getenv != nil {
		p.Home = o.Getenv("HOME")
	}
	if proc.Agent.IsZero() {
		return nil, fmt.Errorf("procedure %s has no agent: pass --agent NAME (see 'agentloop agents') or --agent-cmd CMD, or set agent: in %s", proc.Name, config.WorkspaceFile)
	}
	if p.Agent, err = ResolveAgent(cfg, proc.Agent); err != nil {
		return nil, err
	}
	for _, fb := range proc.Fallback {
		a, err := ResolveAgent(cfg, config.AgentRef{Name: fb})
		if err != nil {
			return nil, fmt.Errorf("fallback: %w", err)
		}
		p.Fallback = append(p.Fallback, a)
	}
	if proc.Reviewer != nil && !proc.Reviewer.Agent.IsZero() {
		a, err := ResolveAgent(cfg, proc.Reviewer.Agent)
		if err != nil {
			return nil, fmt.Errorf("reviewer: %w", err)
		}
		p.Reviewer = &a
	}
	p.redactGates()
	if p.Decider, err = NewDecider(p); err != nil {
		return nil, err
	}
	if cfg.Budgets.On {
		if err := p.shareSpend(cfg, o.Getenv); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// shareSpend puts the user's shared caps in the plan, and who each agent
// charges: its provider and account (from its credentials, never them). The
// ledger kept by default is left off when it has no place ($HOME not set).
func (p *Plan) shareSpend(cfg *config.Config, getenv func(string) string) error {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	p.Budgets, p.ConfigFiles = cfg.Budgets, cfg.Files
	var err error
	if p.BudgetPoll, err = EnvDuration(getenv, "AGENTLOOP_BUDGET_POLL", 5*time.Second); err != nil {
		return err
	}
	if p.LedgerPath = cfg.Budgets.LedgerPath(getenv); p.LedgerPath == "" {
		if !cfg.Budgets.Given { // kept by default, where there is a place for it
			p.Budgets.On = false
			return nil
		}
		return errors.New("the shared spend ledger has no place: set HOME or XDG_STATE_HOME, or budgets.ledger in your configuration")
	}
	key := func(a agent.Preset) budget.Key {
		return budget.Key{Provider: agent.Provider(a), Account: agent.Account(a, getenv)}
	}
	p.Keys = map[string]budget.Key{"": key(p.Agent), p.Agent.Name: key(p.Agent)}
	for _, f := range p.Fallback {
		p.Keys[f.Name] = key(f)
	}
	if p.Reviewer != nil {
		p.ReviewerKey = key(*p.Reviewer)
	}
	return nil
}

// StateDir is the absolute state folder of a configuration for a work tree:
// its state_dir, else .agentloop, relative to the work tree.
func StateDir(cfg *config.Config, wd string) string {
	dir := cfg.StateDir
	if dir == "" {
		dir = ".agentloop"
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir)
	}
	return dir
}

// StopGrace is the grace of the git work a stopped task graph still
// finishes ([graph.Finishing]) that getenv sets ([tasks.StopGraceEnv];
// unset: [tasks.DefaultStopGrace]).
func StopGrace(getenv func(string) string) (time.Duration, error) {
	return EnvDuration(getenv, tasks.StopGraceEnv, tasks.DefaultStopGrace)
}

// EnvDuration is the duration the environment variable name sets (unset or
// empty: def); a value that is not a duration, or a negative one, is an
// error that names the variable.
func EnvDuration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := ""
	if getenv != nil {
		v = getenv(name)
	}
	if v == "" {
		return def, nil
	}
	t, err := time.ParseDuration(v)
	if err != nil || t < 0 {
		return 0, fmt.Errorf("%s=%q: want a duration such as 90s or 30m", name, v)
	}
	return t, nil
}

// CommandArgv turns a configured command into an argv: a plain command line is
// split on spaces (no shell process in between); anything with shell syntax runs
// under sh -c.
func CommandArgv(c config.Command) []string {
	if len(c.Argv) > 0 {
		return slices.Clone(c.Argv)
	}
	if c.Shell == "" {
		return nil
	}
	if !shellword.NeedsShell(c.Shell) {
		return strings.Fields(c.Shell)
	}
	return []string{"sh", "-c", c.Shell}
}

// ResolveAgent turns a procedure's agent reference into a runnable preset: a
// built-in preset, a configured agent (which may build on a preset field by
// field), or an inline command.
func ResolveAgent(cfg *config.Config, ref config.AgentRef) (agent.Preset, error) {
	spec, name := ref.Spec, ref.Name
	if name != "" {
		if s, ok := cfg.Agents[name]; ok {
			spec = s
		} else {
			p, err := agent.Lookup(name)
			if err != nil {
				if near := suggest.Closest(name, slices.Sorted(maps.Keys(cfg.Agents))); near != "" && suggest.Closest(name, agent.Names()) == "" {
					return agent.Preset{}, fmt.Errorf("agent %q is neither a preset nor defined under agents: in the configuration; did you mean %q, defined there?", name, near)
				}
				return agent.Preset{}, fmt.Errorf("agent %q is neither a preset nor defined under agents: in the configuration (%w)", name, err)
			}
			return p, nil
		}
	}
	base := spec.Preset
	if base == "" {
		if _, err := agent.Lookup(name); name != "" && err == nil {
			base = name
		} else {
			base = "custom"
		}
	}
	p, err := agent.Lookup(base)
	if err != nil {
		return agent.Preset{}, fmt.Errorf("agent %q: preset %q: %w", ref.String(), base, err)
	}
	o := agent.Override{Args: spec.Args, ExtraArgs: spec.ExtraArgs, Env: spec.Env, PromptVia: spec.PromptVia, Format: spec.Format, Sandbox: spec.Sandbox}
	if argv := CommandArgv(spec.Cmd); len(argv) > 0 {
		o.Binary = argv[0]
		if spec.Args == nil {
			o.Args = argv[1:]
		}
	}
	p = p.Merge(o)
	if name != "" {
		p.Name = name
	} else if p.Name == "custom" && p.Binary != "" {
		p.Name = spec.Cmd.String()
	}
	if err := p.Validate(); err != nil {
		return agent.Preset{}, err
	}
	return p, nil
}

// GateSpecs resolves the configured gates for the engine; a gate with no
// timeout: of its own gets timeout, the procedure's limits.gate_timeout (0:
// none).
func GateSpecs(gs []config.Gate, timeout time.Duration) []GateSpec {
	out := make([]GateSpec, 0, len(gs))
	for _, g := range gs {
		out = append(out, GateSpec{
			Name: g.Name, Argv: CommandArgv(g.Run), Command: g.Run.String(), Dir: g.Dir,
			Env: envList(g.Env), Timeout: cmp.Or(g.Timeout, timeout), Required: g.Required, Format: g.Format,
			TolerateBaseline: g.TolerateBaseline, MaxFeedback: g.MaxFeedback, Rerun: g.Rerun,
		})
	}
	return out
}

func envList(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}
