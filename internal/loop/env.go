package loop

import (
	"context"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
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
	// Told (StepIteration) is the task as the run was told it
	// ([state.Spec.Told]): with Baseline, it says which failures are
	// outside the task, for the engine to ask the reviewer as the decider
	// will judge the gates (decide.SetAside).
	Told string
	// Remaining is what the run has left to spend (the decider's preflight): the
	// agent is ended when its live usage crosses it.
	Remaining budget.Remaining
	// Reserve (StepReserve) is what the next iteration is predicted to cost.
	Reserve budget.Cost
}

// Env is everything a loop does that touches the world. Run calls nothing else.
type Env interface {
	// Recover reports, once at the start of a session, the agent attempts an
	// earlier session started and never finished (a crash, a kill): attempts
	// numbered above last are cut; the environment keeps what each left (a
	// checkpoint of the tree, its partial diff) and counts what its transcript
	// tells of its spend. An environment whose steps cannot be cut that way
	// returns none.
	Recover(ctx context.Context, last int) ([]state.Interrupted, error)
	// Step does one unit of work: agent, gates and reviewer are all in here.
	Step(ctx context.Context, r StepRequest) (state.StepResult, error)
	// AwaitGuidance suspends the run until a human answers an escalation. The local
	// engine returns ErrSuspended: the run ends as escalated and `resume` continues it.
	AwaitGuidance(ctx context.Context, e state.Escalation) (state.Guidance, error)
	// Save persists the state. An error stops the run at once ([SaveError]):
	// going on would do work that a crash loses or a resume does twice.
	Save(ctx context.Context, st *state.State) error
	// Keep writes what was concluded about an iteration for people to read (the
	// local engine: its decision.yaml and feedback.md), before the state that
	// records the iteration is saved. An error is reported, never fatal to the
	// loop.
	Keep(ctx context.Context, a state.Artifacts) error
	// Emit records an event (events.jsonl, the screen, a workflow's history).
	Emit(ctx context.Context, ev state.Event) error
}
