package loop

import (
	"context"
	"io"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
)

// The ports: what an [Env] that runs a step on this machine or a worker
// calls to run the agent, the gates and the reviewer and to compose the
// prompt. The plan package builds their implementations from a resolved
// plan; an engine is handed them.

// AgentRequest is one agent run.
type AgentRequest struct {
	Iteration int
	Agent     string // a fallback agent's name, empty for the configured one
	// AwaitReset is the configured agent's usage limit reset to wait for
	// (unbilled) before it runs; zero: none.
	AwaitReset time.Time
	Prompt     string
	WorkDir    string
	IterDir    string        // where the prompt file and agent.log go
	Timeout    time.Duration // the iteration's timeout (0: none)
	Echo       io.Writer     // the terminal, when verbose; nil otherwise
	// Started is when the iteration started: its timeout counts from there, so
	// composing the prompt does not stretch it.
	Started time.Time
	// Remaining is what the run has left to spend, as the decision engine judged
	// it before the iteration: the agent is ended when its live usage crosses it.
	Remaining budget.Remaining
	// OnRetry is told of each provider request the agent's CLI (named) says it
	// will retry.
	OnRetry func(agentName string, r agent.Retry)
	// OnUsage is told the agent's usage so far as its CLI streams it.
	OnUsage func(evidence.Usage)
	// OnTool is told the tool call the agent runs as its CLI streams it, ""
	// when it runs none (see [agent.Request.OnTool]).
	OnTool func(string)
}

// AgentRunner runs the implementer agent once.
type AgentRunner interface {
	RunAgent(ctx context.Context, r AgentRequest) (evidence.AgentResult, error)
}

// TranscriptReader reads what an agent's saved transcript tells of its spend,
// for a run that was cut short. The plan's PresetAgents implements it.
type TranscriptReader interface {
	TranscriptUsage(agent, logPath string) evidence.Usage
}

// GateRunner runs the configured gates.
type GateRunner interface {
	// RunGates runs every gate in workDir, writing logs under logDir, judging the
	// results against the baseline (nil for the baseline run itself). It
	// tells each gate it starts to the function of [WithGateStart] in ctx.
	RunGates(ctx context.Context, workDir, logDir string, baseline []evidence.GateResult) ([]evidence.GateResult, error)
	// Count is the number of configured gates.
	Count() int
}

// gateStartKey carries, in a context, who is told of each gate that starts.
type gateStartKey struct{}

// WithGateStart returns ctx with started told of each gate a [GateRunner]
// starts in it: its name and how long it took when it last ran (0: not known).
func WithGateStart(ctx context.Context, started func(name string, usually time.Duration)) context.Context {
	return context.WithValue(ctx, gateStartKey{}, started)
}

// GateStart returns who is told of each gate that starts in ctx
// ([WithGateStart]); ok is false when no one is.
func GateStart(ctx context.Context) (started func(name string, usually time.Duration), ok bool) {
	started, ok = ctx.Value(gateStartKey{}).(func(string, time.Duration))
	return started, ok
}

// ReviewRequest is what the reviewer is given.
type ReviewRequest struct {
	Iteration int
	Task      string
	Diff      string
	Gates     []evidence.GateResult
	// OutsideTask are the keys of the gates' failures that were there
	// before the run and are outside the task (decide.SetAside): they do
	// not stand in the way of an approval.
	OutsideTask []string
	IterDir     string
	WorkDir     string
}

// Reviewer asks the reviewer agent for a verdict.
type Reviewer interface {
	Review(ctx context.Context, r ReviewRequest) (evidence.Review, error)
}

// ReviewTranscriptReader reads what the reviewer's saved transcripts in an
// attempt's folder tell of its spend, for an attempt cut after its review.
// The plan's ReviewerAgent implements it.
type ReviewTranscriptReader interface {
	ReviewUsage(iterDir string) evidence.Usage
}

// Prompter composes the prompt of an iteration.
type Prompter interface {
	Compose(r StepRequest) (prompt string, err error)
	// HasTask reports whether the prompt of r tells the agent what to do beyond a
	// built-in procedure's general instructions (a task, context with content,
	// the failures found so far, guidance, or prompt parts of the user's own).
	HasTask(r StepRequest) bool
}

// Parts are what the steps of one run are made of, resolved once from its
// plan (plan.Plan.Parts) and handed to an engine, which runs the steps with
// them: the agent, the gates, the reviewer and the prompt, and the settings
// of the run those steps obey.
type Parts struct {
	Name    string // the run's name
	WorkDir string
	Task    string // what the run is asked to do, for the reviewer

	Agent    AgentRunner
	Gates    GateRunner
	Reviewer Reviewer
	Prompt   Prompter

	// Fallback are the agents to switch to, in order, when the agent is at
	// its usage limit; RateLimitWait is the wait per iteration before that.
	Fallback      []string
	RateLimitWait time.Duration
	BackoffBase   time.Duration // the first transient failure's wait
	TokenBudget   int           // the prompt's token budget; 0: none
	// EscalationDiffLines is how much of the diff an escalation report
	// shows (0: none).
	EscalationDiffLines int

	// Git is what the run does in git: checkpoints (and so rollbacks and
	// an escalation's diff), a commit and a push after each iteration.
	Git struct {
		Checkpoint, Commit, Push bool
		Remote                   string
	}
	// Analyze reads the facts of an iteration's diff (the task's scope, the
	// protected paths, tests, a secret added) from its unredacted text.
	Analyze func(patch string) evidence.DiffFacts
	// SetAside is the decider's rule of the failures outside the task
	// (decide.SetAside): the iteration as the decider will judge it and the
	// keys it sets aside, for the engine to ask the reviewer exactly when
	// the decider finds the gates green. nil: nothing is set aside.
	SetAside func(told string, baseline []evidence.GateResult, ev evidence.Iteration) (evidence.Iteration, []string)
}
