package cli

import (
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/config"
)

// loopOptions are the flags a loop runs with: those of `run` that `resume`
// shares.
type loopOptions struct {
	maxIterations    int
	failureThreshold int
	agent            string
	agentCmd         string
	contexts         []string
	gates            []string
	reviewer         string
	iterationTimeout time.Duration
	gateTimeout      time.Duration
	timeout          time.Duration
	maxDuration      time.Duration
	maxTokens        int64
	maxCost          float64
	config           string
	logFormat        string
	verbose          bool
	quiet            bool
	sandbox          bool
	keepAwake        bool
	notify           []string
	dailyCap         float64
	weeklyCap        float64
	monthlyCap       float64

	// given are the flags given on the command line, in order, with their values.
	given []givenFlag
}

// givenFlag is one flag given on the command line: its name and its values as
// text that parses back to the same value (one for each use of a repeatable flag).
type givenFlag struct {
	name   string
	values []string
}

// AddFlags adds the loop's flags to fs.
func (o *loopOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.maxIterations, "max-iterations", 0, "stop after N iterations (0: unlimited; default from the procedure)")
	fs.IntVar(&o.failureThreshold, "failure-threshold", 0, "abort after N consecutive failed iterations (default 3)")
	fs.StringVar(&o.agent, "agent", "", "agent preset or configured agent name (see 'agentloop agents')")
	fs.StringVar(&o.agentCmd, "agent-cmd", "", "run this command as the agent (shell syntax; prompt on stdin)")
	fs.StringArrayVar(&o.contexts, "context", nil, "context file or text for the prompt (repeatable)")
	fs.StringArrayVar(&o.gates, "gate", nil, "quality gate command run after each iteration (repeatable)")
	fs.StringVar(&o.reviewer, "reviewer", "", "reviewer agent preset or name")
	fs.DurationVar(&o.iterationTimeout, "iteration-timeout", 0, "end an iteration's agent after this long (e.g. 30m)")
	fs.DurationVar(&o.gateTimeout, "gate-timeout", 0, "end a gate that runs this long, unless its own timeout: says otherwise; it fails with its last lines (default 10m)")
	fs.DurationVar(&o.timeout, "timeout", 0, "end the whole run after this long")
	fs.DurationVar(&o.maxDuration, "max-duration", 0, "wall-time budget for the run, kept across resumes (e.g. 2h)")
	fs.Int64Var(&o.maxTokens, "max-tokens", 0, "token budget for the run")
	fs.Float64Var(&o.maxCost, "max-cost", 0, "cost budget for the run, in USD")
	fs.StringVar(&o.config, "config", "", "workspace configuration file (default ./agentloop.yaml)")
	fs.StringVar(&o.logFormat, "log-format", "", "progress output: text or json")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "show what the agent says and does (a line per text and tool call) and more detail")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print only warnings and the final line")
	fs.Float64Var(&o.dailyCap, "daily-cap", 0, "what every loop of yours together may spend today, in USD (overrides budgets: in your configuration; see 'agentloop spend')")
	fs.Float64Var(&o.weeklyCap, "weekly-cap", 0, "what every loop of yours together may spend this week, in USD")
	fs.Float64Var(&o.monthlyCap, "monthly-cap", 0, "what every loop of yours together may spend this month, in USD")
	fs.BoolVar(&o.sandbox, "sandbox", false, "run the agents in a sandbox: the work tree writable, $HOME hidden, the network limited to their model API (see 'agentloop doctor'); refuses to start where there is none")
	fs.BoolVar(&o.keepAwake, "keep-awake", true, "keep the machine from sleeping while the loop runs (macOS: caffeinate -i; keep_awake: in the configuration); --keep-awake=false lets it sleep")
	fs.StringArrayVar(&o.notify, "notify", nil, "also notify this receiver (repeatable): "+app.NotifyTargetSyntax+"; not recorded for resume")
}

// mutuallyExclusive are the loop's flags that cannot be given together.

// noteGiven records which flags of fs were given on the command line, once
// fs is parsed.
func (o *loopOptions) noteGiven(fs *pflag.FlagSet) {
	o.given = nil
	fs.Visit(func(f *pflag.Flag) {
		g := givenFlag{name: f.Name}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			g.values = sv.GetSlice()
		} else {
			g.values = []string{f.Value.String()}
		}
		o.given = append(o.given, g)
	})
}

// isGiven reports whether the flag was given on the command line.
func (o *loopOptions) isGiven(name string) bool {
	for _, g := range o.given {
		if g.name == name {
			return true
		}
	}
	return false
}

// presentation flags change what is printed, not what the run does: they are
// not recorded for resume.
// The engine's flags say where the run runs, not what it does.
var presentation = func() map[string]bool {
	m := map[string]bool{
		"dry-run": true, "verbose": true, "quiet": true, "log-format": true, "tasks": true, "parallel": true,
		"engine": true, "temporal-address": true, "temporal-namespace": true, "temporal-task-queue": true, "worker-queue": true, "merge-queue": true,
		"heartbeat-timeout": true, "detach": true, "issue": true, // the issue is in the run's state
		// serve's own: how it takes issues, not what each issue's run does
		// (a cap per issue is recorded as the run's --max-cost).
		"issues": true, "every": true, "once": true, "max-cost-per-issue": true,
		// A receiver's URL can be a secret (a Slack webhook's): it is not kept in the state.
		"notify": true,
		// The caps every loop shares are the person's of the day, not the run's.
		"daily-cap": true, "weekly-cap": true, "monthly-cap": true,
		// Whether this machine may sleep is the person's of the moment too.
		"keep-awake": true,
	}
	for _, n := range connFlagNames {
		m[n] = true
	}
	return m
}()

// recorded returns the flags given on the command line that shape the run, as
// arguments that parse back to the same values: what resume starts from. A
// credential written in one (a gate's `curl -H "Authorization: token ghp_…"`)
// is redacted, so the state does not keep it: [loopOptions.onRecorded] then
// asks for that flag again.
func (o *loopOptions) recorded() []string {
	var args []string
	for _, g := range o.given {
		if presentation[g.name] {
			continue
		}
		for _, v := range g.values {
			args = append(args, "--"+g.name+"="+app.RedactSecrets(v))
		}
	}
	return args
}

// noSecretForFleet refuses a run on the Temporal engine whose flags hold a
// credential: its flags travel to the workers in the run's history, which
// must not keep one, and a worker cannot be given the flag again, as a
// resume here can.
func (o *loopOptions) noSecretForFleet() error {
	for _, a := range o.recorded() {
		name, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if shown, ok := app.RedactedSecret(v); ok {
			return usageError("--%s holds a secret (%s): on the Temporal engine a run's flags go to the workers in its history, where no secret belongs; "+
				"keep it in an environment variable the command reads ($TOKEN) and give that variable to the workers", name, shown)
		}
	}
	return nil
}

// envLimits are the limits set through the environment and not by a flag, as
// flags: recorded with the run, so a resume keeps every limit in force when the
// run started, wherever it was set.
func (o *loopOptions) envLimits(getenv func(string) string) []string {
	var args []string
	for _, l := range [...]struct{ env, flag string }{
		{"AGENTLOOP_MAX_ITERATIONS", "max-iterations"},
		{"AGENTLOOP_FAILURE_THRESHOLD", "failure-threshold"},
		{"AGENTLOOP_ITERATION_TIMEOUT", "iteration-timeout"},
		{"AGENTLOOP_GATE_TIMEOUT", "gate-timeout"},
		{"AGENTLOOP_TIMEOUT", "timeout"},
		{"AGENTLOOP_MAX_DURATION", "max-duration"},
		{"AGENTLOOP_MAX_TOKENS", "max-tokens"},
		{"AGENTLOOP_MAX_COST_USD", "max-cost"},
	} {
		if v := getenv(l.env); v != "" && !o.isGiven(l.flag) {
			args = append(args, "--"+l.flag+"="+v)
		}
	}
	return args
}

// onRecorded rebuilds the options of a recorded run from its flags, then
// applies the flags given now on top (they win; a repeatable flag given now
// replaces the recorded values).
func (o *loopOptions) onRecorded(recorded []string) (loopOptions, error) {
	var m loopOptions
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	m.AddFlags(fs)
	if err := fs.Parse(recorded); err != nil {
		return loopOptions{}, usageError("the run's recorded flags %q no longer parse: %v; start a new run instead", recorded, err)
	}
	if err := o.secretsGivenAgain(recorded); err != nil {
		return loopOptions{}, err
	}
	for _, g := range o.given {
		f := fs.Lookup(g.name)
		if f == nil {
			continue
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			// Set marks the flag given, so that it is recorded again (Replace
			// alone changes its values unseen); Replace then makes them the
			// ones given now, not added to the recorded ones.
			if len(g.values) > 0 {
				if err := fs.Set(g.name, g.values[0]); err != nil {
					return loopOptions{}, usageError("--%s: %v", g.name, err)
				}
			}
			if err := sv.Replace(g.values); err != nil {
				return loopOptions{}, usageError("--%s: %v", g.name, err)
			}
			f.Changed = true
			continue
		}
		if err := fs.Set(g.name, g.values[0]); err != nil {
			return loopOptions{}, usageError("%v", err)
		}
	}
	m.noteGiven(fs)
	return m, nil
}

// secretsGivenAgain checks that each recorded flag whose value held a
// credential, redacted when it was recorded, is given again now: run with the
// marker in its place, a gate or an agent would fail on it.
func (o *loopOptions) secretsGivenAgain(recorded []string) error {
	for _, a := range recorded {
		name, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		shown, ok := app.RedactedSecret(v)
		if !ok || o.isGiven(name) {
			continue
		}
		return usageError("the run's --%s held a secret, which agentloop does not record (%s): give --%s again, as the run was started with it, "+
			"or keep the secret in an environment variable the command reads ($TOKEN)", name, shown, name)
	}
	return nil
}

// overrideFlags are the flags that override a configuration key, each with
// where its value goes; a flag counts only when it was given.
var overrideFlags = []struct {
	flag string
	set  func(o *loopOptions, ov *config.Overrides)
}{
	{"max-iterations", func(o *loopOptions, ov *config.Overrides) { ov.MaxIterations = &o.maxIterations }},
	{"failure-threshold", func(o *loopOptions, ov *config.Overrides) { ov.FailureThreshold = &o.failureThreshold }},
	{"agent-cmd", func(o *loopOptions, ov *config.Overrides) { ov.AgentCmd = &o.agentCmd }},
	{"agent", func(o *loopOptions, ov *config.Overrides) { ov.Agent = &o.agent }},
	{"reviewer", func(o *loopOptions, ov *config.Overrides) { ov.Reviewer = &o.reviewer }},
	{"iteration-timeout", func(o *loopOptions, ov *config.Overrides) { ov.IterationTimeout = &o.iterationTimeout }},
	{"timeout", func(o *loopOptions, ov *config.Overrides) { ov.Timeout = &o.timeout }},
	{"gate-timeout", func(o *loopOptions, ov *config.Overrides) { ov.GateTimeout = &o.gateTimeout }},
	{"max-duration", func(o *loopOptions, ov *config.Overrides) { ov.MaxDuration = &o.maxDuration }},
	{"max-tokens", func(o *loopOptions, ov *config.Overrides) { ov.MaxTokens = &o.maxTokens }},
	{"max-cost", func(o *loopOptions, ov *config.Overrides) { ov.MaxCostUSD = &o.maxCost }},
	{"log-format", func(o *loopOptions, ov *config.Overrides) { ov.LogFormat = &o.logFormat }},
	{"sandbox", func(o *loopOptions, ov *config.Overrides) { ov.Sandbox = &o.sandbox }},
	{"keep-awake", func(o *loopOptions, ov *config.Overrides) { ov.KeepAwake = &o.keepAwake }},
	{"daily-cap", func(o *loopOptions, ov *config.Overrides) { ov.DailyCap = &o.dailyCap }},
	{"weekly-cap", func(o *loopOptions, ov *config.Overrides) { ov.WeeklyCap = &o.weeklyCap }},
	{"monthly-cap", func(o *loopOptions, ov *config.Overrides) { ov.MonthlyCap = &o.monthlyCap }},
}

// overrides are the configuration values the given flags override.
func (o *loopOptions) overrides() config.Overrides {
	var ov config.Overrides
	for _, f := range overrideFlags {
		if o.isGiven(f.flag) {
			f.set(o, &ov)
		}
	}
	ov.Context = o.contexts
	ov.Gates = o.gates
	ov.Notify = o.notify
	return ov
}

// markExclusive makes the command refuse, as a usage error in plain words
// (exit 2), the loop's flags that cannot be given together, and the groups of
// its own (each a list of flags of which one at most is given, with what
// choosing means).
func markExclusive(cmd *cobra.Command, own ...exclusive) {
	groups := append(slices.Clone(loopExclusive), own...)
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		for _, g := range groups {
			var given []string
			for _, name := range g.flags {
				if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
					given = append(given, "--"+name)
				}
			}
			if len(given) > 1 {
				return usageError("%s cannot be given together: %s", strings.Join(given, " and "), g.choose)
			}
		}
		return nil
	}
}

// exclusive is a group of flags of which one at most is given.
type exclusive struct {
	flags  []string
	choose string // what each choice means, for the person who gave several
}

var loopExclusive = []exclusive{
	{[]string{"agent", "agent-cmd"}, "give a preset with --agent NAME, or a command of your own with --agent-cmd CMD"},
	{[]string{"verbose", "quiet"}, "choose -v (more output) or -q (less)"},
}
