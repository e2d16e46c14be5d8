package state

import (
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
)

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
