package engine

import (
	"context"
	"io"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

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

// GateRunner runs the configured gates.
type GateRunner interface {
	// RunGates runs every gate in workDir, writing logs under logDir, judging the
	// results against the baseline (nil for the baseline run itself).
	RunGates(ctx context.Context, workDir, logDir string, baseline []evidence.GateResult) ([]evidence.GateResult, error)
	// Count is the number of configured gates.
	Count() int
}

// ReviewRequest is what the reviewer is given.
type ReviewRequest struct {
	Iteration int
	Task      string
	Diff      string
	Gates     []evidence.GateResult
	IterDir   string
	WorkDir   string
}

// Reviewer asks the reviewer agent for a verdict.
type Reviewer interface {
	Review(ctx context.Context, r ReviewRequest) (evidence.Review, error)
}

// Workspace snapshots and restores the work tree (git), and reports what an
// iteration changed. A workspace outside git reports no diff facts.
type Workspace interface {
	Snapshot(ctx context.Context, ref, message string) (commit, tree string, err error)
	// Start returns the checkpoint an iteration starts from: the last one taken
	// or restored, or a new snapshot under ref when there is none yet.
	Start(ctx context.Context, ref, message string) (commit, tree string, err error)
	Restore(ctx context.Context, commit string) error
	// RestoreKeeping restores commit after keeping, under backupRef, whatever
	// the tree holds beyond expect (the checkpoint agentloop last left it at);
	// nothing is restored when that cannot be kept.
	RestoreKeeping(ctx context.Context, commit, expect, backupRef, message string) (gitx.Kept, error)
	// Diff returns the facts and the unified diff from a snapshot to the current tree.
	Diff(ctx context.Context, from string) (evidence.DiffFacts, string, error)
	// AfterIteration commits or pushes as configured; errors are warnings.
	AfterIteration(ctx context.Context, iteration int, message string) error
}

// Prompter composes the prompt of an iteration.
type Prompter interface {
	Compose(r loop.StepRequest) (prompt string, err error)
	// HasTask reports whether the prompt of r tells the agent what to do beyond a
	// built-in procedure's general instructions (a task, context with content,
	// the failures found so far, guidance, or prompt parts of the user's own).
	HasTask(r loop.StepRequest) bool
}

// Store persists the run state.
type Store interface {
	Save(st *state.State) error
}

// EventLog records events.
type EventLog interface {
	Append(ev state.Event) error
}

// Screen is what a person sees (the ui package's Printer).
type Screen interface {
	Event(ev state.Event)
	Phase(phase string)
}
