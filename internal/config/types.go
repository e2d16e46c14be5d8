package config

import (
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/prompt"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// Config is the effective configuration: every tier merged.
type Config struct {
	Default   string               // the default procedure; see [Config.Procedure]
	StateDir  string               // where state and run artifacts go (default .agentloop)
	LogFormat string               // text or json
	KeepAwake bool                 // keep the machine from sleeping while a loop runs (macOS: caffeinate)
	Agents    map[string]AgentSpec // agent definitions and preset overrides, by name
	Prices    map[string]Price     // USD per million tokens, by model
	Temporal  Temporal             // where the Temporal engine's server is (unset fields: the defaults)
	Notify    target.Config        // where notifications go (notify:, and --notify)
	Budgets   Budgets              // the caps every loop of the user shares (the user's configuration only)
	Issues    Issues               // how a run taken from a tracker issue runs (issues:)
	Files     []string             // the configuration files read, in tier order, as messages name them

	procs   map[string]Procedure
	sources map[string][]Source
	user    []string // procedures defined in configuration files, sorted
	top     []Source // sources of the top-level keys
}

// Temporal is the temporal: section: the Temporal engine's server, namespace,
// the task queue of its workflows, and how long a step may go without a sign
// of life from its worker. An empty field is not set.
type Temporal struct {
	Address          string // host:port
	Namespace        string
	TaskQueue        string
	HeartbeatTimeout time.Duration
}

// Procedure is one resolved procedure: what a run of it does.
type Procedure struct {
	Name             string
	Description      string
	Prompt           prompt.Parts
	Agent            AgentRef
	Fallback         []string // agents to switch to when simplifying
	Gates            []Gate
	Reviewer         *Reviewer // nil: no reviewer
	Limits           Limits
	Feedback         Feedback
	Baseline         bool // run the gates on the untouched tree first (default true)
	Escalation       Escalation
	Policy           map[string]any // free-form, for the decision engine
	Git              Git
	Sandbox          Sandbox
	CompletionMarker string
	Builtin          bool // defined by the binary, not by a file
}

// AgentRef is a procedure's agent: the name of a configured agent or preset,
// or an inline definition.
type AgentRef struct {
	Name string    // a name in [Config.Agents] or a preset; empty when inline
	Spec AgentSpec // the inline definition when Name is empty
}

// IsZero reports whether no agent is set.
func (a AgentRef) IsZero() bool { return a.Name == "" && a.Spec.IsZero() }

// String names the agent for people.
func (a AgentRef) String() string {
	if a.Name != "" {
		return a.Name
	}
	if a.Spec.Preset != "" {
		return a.Spec.Preset
	}
	return a.Spec.Cmd.String()
}

// AgentSpec defines an agent, or overrides a preset's fields one by one.
type AgentSpec struct {
	Preset    string            // the built-in preset this builds on (claude, codex, …)
	Cmd       Command           // the program; replaces the preset's
	Args      []string          // replaces the preset's arguments
	ExtraArgs []string          // appended to the arguments
	Env       map[string]string // added to the environment
	PromptVia string            // stdin, arg or file
	Format    string            // how to read its output (e.g. claude-stream-json, text)
	// Sandbox, when set, runs the agent in a sandbox with what it adds to the
	// procedure's (more hosts, paths, another network).
	Sandbox *policy.Config
}

// IsZero reports whether nothing is set.
func (s AgentSpec) IsZero() bool {
	return s.Preset == "" && s.Cmd.IsZero() && s.Args == nil && s.ExtraArgs == nil &&
		s.Env == nil && s.PromptVia == "" && s.Format == "" && s.Sandbox == nil
}

// Command is a program: an argv, or one shell command line.
type Command struct {
	Argv  []string
	Shell string // run with sh -c
}

// IsZero reports whether the command is empty.
func (c Command) IsZero() bool { return len(c.Argv) == 0 && c.Shell == "" }

// String renders the command for people.
func (c Command) String() string {
	if c.Shell != "" {
		return c.Shell
	}
	return quoteArgv(c.Argv)
}

// Gate is a quality check agentloop runs after each iteration.
type Gate struct {
	Name             string
	Run              Command
	Dir              string
	Timeout          time.Duration // 0: the procedure's limits.gate_timeout
	Required         bool          // a failing optional gate does not fail the iteration (default true)
	Format           string        // output format (default auto)
	Env              map[string]string
	TolerateBaseline bool // green when no failure beyond the baseline remains
	MaxFeedback      int  // cap on this gate's part of the feedback, in characters (0: shared cap)
	// Rerun is what a failing required gate runs again to tell a flaky test
	// from a real failure: failed (its failed tests, by name), whole (its
	// command) or off ("": failed); gate.RerunModes lists them.
	Rerun string
}

// Reviewer is the second agent that judges each iteration.
type Reviewer struct {
	Agent     AgentRef
	Prompt    prompt.Part
	MaxRounds int // default 3
}

// Limits bound a run: the user's limits on the loop ([budget.Limits]: max
// iterations, failure threshold (default 3), tokens, cost, wall time,
// iteration timeout), which the decision engine judges, and the limits on the
// processes.
type Limits struct {
	budget.Limits
	IdleTimeout time.Duration // agent silent this long is ended
	// GateTimeout ends a gate that runs this long, unless its own timeout:
	// says otherwise (built-in: DefaultGateTimeout); a gate that runs out
	// fails with what it printed last.
	GateTimeout time.Duration
	Timeout     time.Duration // the whole run ends after this long
	TokenBudget int64         // warn when one prompt is larger than this
}

// Feedback shapes the feedback given to the next iteration.
type Feedback struct {
	MaxLength int // characters (default 500)
}

// Escalation says when to stop and ask a human.
type Escalation struct {
	On             []string // reasons that escalate at once
	ProtectedPaths []string // globs the agent must not touch
	IncludeDiff    bool
	MaxDiffLines   int
}

// Sandbox is a procedure's sandbox: section (or --sandbox): whether its
// agents and its gates run in a sandbox, and what the sandbox lets through
// (each agent may add to it with its own sandbox:).
type Sandbox struct {
	Agents bool // the agent, its fallbacks and the reviewer
	Gates  bool
	policy.Config
}

// Git says what to do with the work tree after each iteration.
type Git struct {
	Checkpoint bool // a ref under refs/agentloop/ (default true)
	Commit     bool
	Push       bool
	Remote     string
	Branch     string
}

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
}

// Source says where an effective value came from.
type Source struct {
	Key   string // e.g. limits.max_iterations
	Value string
	From  string // "built-in", "global /path:12", "workspace agentloop.yaml:7", "env AGENTLOOP_X", "flag --x"
}

// Overrides are the run command's flags; nil or empty means not given.
type Overrides struct {
	MaxIterations    *int
	FailureThreshold *int
	AgentCmd         *string
	Agent            *string
	Context          []string // appended to the procedure's context
	Gates            []string // replace the procedure's gates
	IterationTimeout *time.Duration
	GateTimeout      *time.Duration
	Timeout          *time.Duration
	MaxDuration      *time.Duration
	MaxTokens        *int64
	MaxCostUSD       *float64
	LogFormat        *string
	Reviewer         *string
	Sandbox          *bool // --sandbox: the agents run in the sandbox
	KeepAwake        *bool // --keep-awake
	// Notify are receivers added to the configuration's, each as
	// [target.Syntax] says; "none" drops those before it.
	Notify []string
	// DailyCap, WeeklyCap and MonthlyCap (--daily-cap, …) are the hard
	// limits, in USD, of what every loop together spends in the period.
	DailyCap, WeeklyCap, MonthlyCap *float64
}
