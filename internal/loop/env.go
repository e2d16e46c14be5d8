package loop

import (
	"context"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
)

// StepKind names a unit of work the loop asks its environment to do.
type StepKind string

// The steps of a loop. Each is at-least-once: it may be run again after a crash, so
// an environment starts each one from a known work-tree state.
const (
	StepBaseline  StepKind = "baseline"  // run the gates on the untouched tree
	StepIteration StepKind = "iteration" // compose the prompt, run the agent, the gates and the reviewer
	StepRollback  StepKind = "rollback"  // restore the work tree to a checkpoint, keeping what differs from Expect
	// StepReserve holds the next iteration's predicted cost ([StepRequest.Reserve])
	// in the spend shared with the user's other loops, before the iteration
	// starts (only when [Spec.Shared]). It may wait (a soft limit, an
	// account's usage window: not billed), or stop the run ([StopError]: a
	// hard limit). The iteration step that follows settles it.
	StepReserve StepKind = "reserve"
)

// StepRequest is what the loop asks of its environment.
type StepRequest struct {
	Kind      StepKind
	Iteration int      // 1-based iteration number in its segment (StepIteration)
	Seq       int      // the agent attempt's number in the run: its folder and refs (StepIteration)
	Attempt   int      // which fresh attempt (of the decider's strategies) this iteration belongs to
	Feedback  string   // synthesized feedback of the last iteration, for the prompt
	Guidance  string   // human guidance given on resume, for the prompt
	Steer     string   // guidance given to the running loop (agentloop guide), for the prompt
	Strategy  string   // the strategy chosen for this iteration (retry, refine, expand, simplify)
	Lessons   []string // lessons from earlier attempts (simplify)
	Focus     string   // one failure to focus on (simplify), empty for all
	Expand    []string // files and symbols to add to the context (expand)
	Agent     string   // agent to use, when a fallback replaced the configured one
	// AwaitReset (StepReserve, StepIteration) is the configured agent's usage
	// limit reset to wait for: the iteration runs on it, never on a fallback.
	AwaitReset time.Time
	Timeout    time.Duration // the iteration's timeout: a raised one (expand), else the limit's
	Checkpoint string        // StepRollback: the checkpoint to restore
	// Expect (StepRollback) is the checkpoint agentloop last left the tree
	// at: whatever the tree holds beyond it (a person's edits, new files) is
	// kept in a backup ref before the restore, and said. "" when unknown:
	// anything that differs from Checkpoint is kept.
	Expect string
	// Why (StepRollback) says what the restore is for, in the warning that
	// names a backup ("undo the cut attempt 3", "accept").
	Why      string
	Baseline []evidence.GateResult
	// Remaining is what the run has left to spend (the decider's preflight): the
	// agent is ended when its live usage crosses it.
	Remaining budget.Remaining
	// Reserve (StepReserve) is what the next iteration is predicted to cost.
	Reserve budget.Cost
}

// StepResult is what a step produced.
type StepResult struct {
	Started    time.Time
	Finished   time.Time
	Iteration  evidence.Iteration    // StepIteration
	Baseline   []evidence.GateResult // StepBaseline
	Checkpoint string                // the checkpoint of the tree after the step, if any (a cut attempt's: what it left)
	Start      string                // StepIteration: the checkpoint the attempt started from
	// Waited is time spent waiting on rate limits; it counts against wall-clock
	// budgets but not as a failed iteration.
	Waited time.Duration
	// Paused is the part of Waited the agent paused until its account's usage
	// limit reset: not billed, it is left out of the run's wall time.
	Paused time.Duration
	// Agent is how long the agent ran (a cut attempt's time, from its process).
	Agent time.Duration
}

// Env is everything a loop does that touches the world. Run calls nothing else.
type Env interface {
	// Recover reports, once at the start of a session, the agent attempts an
	// earlier session started and never finished (a crash, a kill): attempts
	// numbered above last are cut; the environment keeps what each left (a
	// checkpoint of the tree, its partial diff) and counts what its transcript
	// tells of its spend. An environment whose steps cannot be cut that way
	// returns none.
	Recover(ctx context.Context, last int) ([]Interrupted, error)
	// Step does one unit of work: agent, gates and reviewer are all in here.
	Step(ctx context.Context, r StepRequest) (StepResult, error)
	// AwaitGuidance suspends the run until a human answers an escalation. The local
	// engine returns ErrSuspended: the run ends as escalated and `resume` continues it.
	AwaitGuidance(ctx context.Context, e Escalation) (Guidance, error)
	// Save persists the state. An error stops the run at once ([SaveError]):
	// going on would do work that a crash loses or a resume does twice.
	Save(ctx context.Context, st *State) error
	// Keep writes what was concluded about an iteration for people to read (the
	// local engine: its decision.yaml and feedback.md), before the state that
	// records the iteration is saved. An error is reported, never fatal to the
	// loop.
	Keep(ctx context.Context, a Artifacts) error
	// Emit records an event (events.jsonl, the screen, a workflow's history).
	Emit(ctx context.Context, ev Event) error
}

// Artifacts are what the decider concluded about one iteration, kept for people.
type Artifacts struct {
	Iteration int                // the iteration they are about
	Seq       int                // its attempt's number in the run: its folder
	Decision  *decision.Document // nil when the decider writes no document
	Feedback  string             // the feedback for the next prompt; empty: none
	// Escalation is the escalation the run stops on, whose report is written
	// before the state that says the run escalated is saved; nil: none.
	Escalation *Escalation `json:",omitempty"`
}

// Escalation is what a loop hands a human when it must stop and ask.
type Escalation struct {
	Reason   string
	Question string
	Options  []string
	// Report is the full escalation report, rendered by the environment; nil
	// when the loop itself escalates (a limit reached before an iteration).
	Report *decision.EscalationReport
	// Segment is the segment that escalates: the run's escalation files are
	// numbered by it (one per escalation, none written over).
	Segment int
	// Segments recall the run's segments, this one last, when it has more
	// than one ([SegmentSummaries]); the report shows them.
	Segments []decision.SegmentSummary `json:",omitempty"`
	// Since is the person's last part in the run before it escalated (its
	// start, a resume, an abort) and Handoffs how many the run has had: a
	// segment that escalates again with the same words (resumed without
	// guidance after an abort) gets a report of its own, told apart by them,
	// while a step that writes the same escalation twice writes it once.
	Since    *Handoff `json:",omitempty"`
	Handoffs int      `json:",omitempty"`
}

// Guidance is a human's answer to an escalation.
type Guidance struct {
	Text         string
	Architecture bool // record the answer as an architecture decision
	// At and By say when and who answered, for the run's history.
	At time.Time
	By string
}
