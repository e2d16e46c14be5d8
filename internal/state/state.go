package state

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
)

// StateVersion is the schema version of [State] written by this build. Version
// 2 keeps the run's history (its records, cut attempts and hand-offs) in the
// run folder's append-only log instead of the state file (see package state).
const StateVersion = 2

// Status is where a run stands.
type Status string

// Run statuses: running → succeeded | completed | aborted | escalated | interrupted.
const (
	StatusRunning     Status = "running"
	StatusSucceeded   Status = "succeeded"   // every required gate green (and the reviewer approved)
	StatusCompleted   Status = "completed"   // ran to its limit with no outside evidence to judge by
	StatusAborted     Status = "aborted"     // failure threshold or budget
	StatusEscalated   Status = "escalated"   // waiting for a human
	StatusInterrupted Status = "interrupted" // Ctrl-C, SIGTERM, or the process died
)

// Ended reports whether the status is final for this session.
func (s Status) Ended() bool { return s != StatusRunning && s != "" }

// State is a run's persisted state: everything needed to resume it.
type State struct {
	Version   int    `json:"version"`
	Name      string `json:"name"`
	RunID     string `json:"run_id"`
	Procedure string `json:"procedure_name"`
	Status    Status `json:"status"`
	Reason    string `json:"reason,omitempty"`
	// StoppedBy are the run's own limits that stopped it (status aborted),
	// as its decider said: what a person raises to go on. The loop records
	// it; none when something else ended the run.
	StoppedBy       []budget.Resource `json:"stopped_by,omitempty"`
	Iteration       int               `json:"iteration"` // iterations finished in this segment (counter, reset by guidance)
	TotalIterations int               `json:"total_iterations"`
	// Attempts is the run-wide sequence of agent attempts: the number of the
	// last one started, across every session, segment, Ctrl-C and crash. An
	// attempt's folder (iter-NNN) and checkpoint refs are named by its number,
	// so no attempt ever writes over another's records. The loop owns it.
	Attempts int `json:"attempts,omitempty"`
	// Segment is the number of the current segment: 1 from the start, one
	// more with each guidance (which restarts the iteration counter).
	Segment             int       `json:"segment,omitempty"`
	MaxIterations       int       `json:"max_iterations"`
	ConsecutiveFailures int       `json:"consecutive_failures"`
	FailureThreshold    int       `json:"failure_threshold"`
	StartedAt           time.Time `json:"started_at"`
	LastIterationAt     time.Time `json:"last_iteration_at,omitzero"`
	Spend               Spend     `json:"spend"`
	Sessions            []Session `json:"sessions,omitempty"`
	// History, Interrupted and Handoffs grow with the run: the local store
	// keeps them in the run folder's append-only log, not in the state file,
	// which holds the run's position (see package state); Logged counts what
	// of each the log already holds.
	History  []Record              `json:"history,omitempty"`
	Baseline []evidence.GateResult `json:"baseline,omitempty"`
	// Interrupted are the attempts that Ctrl-C, a crash or a kill cut
	// short; their time and known spend are in Spend.
	Interrupted []Interrupted `json:"interrupted,omitempty"`
	// Handoffs are the moments a person took part: the start, each resume,
	// guidance, accept and abort, with what they said.
	Handoffs []Handoff `json:"handoffs,omitempty"`
	Logged   Logged    `json:"logged,omitzero"`
	// Undo is a cut attempt whose work is still in the tree. The next session
	// leaves it there (the tree as the person left it, see [State.KeepTree]),
	// or, when UndoCut asks, puts the tree back where the attempt started
	// after keeping what it holds in a backup ref.
	Undo *Undo `json:"undo,omitempty"`
	// UndoCut is the person's ask (resume --undo-cut) to put the tree back
	// where the cut attempt started; the next session obeys it once.
	UndoCut bool `json:"undo_cut,omitempty"`
	// Floor is the number of the last attempt whose checkpoint a rollback may
	// no longer go back to: a resume that kept a tree holding what agentloop
	// did not record (a person's edits, a cut attempt's work) sets it, so the
	// decider's later rollbacks count from the tree as resumed and never take
	// the person's work out of it.
	Floor        int  `json:"floor,omitempty"`
	BaselineDone bool `json:"baseline_done,omitempty"`
	// LastDecision is the decision on the last recorded iteration (what
	// status shows without reading the history).
	LastDecision string `json:"last_decision,omitempty"`
	Feedback     string `json:"feedback,omitempty"` // for the next prompt
	Guidance     string `json:"guidance,omitempty"` // for the next prompt
	// Steer is the guidance people gave the running loop (agentloop guide),
	// oldest first: every later prompt of the run carries it.
	Steer string      `json:"steer,omitempty"`
	Next  Next        `json:"next"` // what the next iteration does
	Best  *Checkpoint `json:"best,omitempty"`
	// Tree is the checkpoint agentloop last left the work tree at (an
	// attempt's end, a rollback, an undo): a restore keeps whatever the tree
	// holds beyond it. "" when unknown or outside git.
	Tree string `json:"tree,omitempty"`
	// Args are the command-line flags the run was started with, so that resume
	// runs it the same way (the same agent, gates and limits).
	Args []string `json:"args,omitempty"`
	// WorkDir is the work tree the agent runs in (a task's worktree), when it is
	// not the folder agentloop was started from.
	WorkDir string `json:"work_dir,omitempty"`
	// Issue is the tracker issue the run is taken from (run --issue), and
	// what agentloop wrote there; nil for a run of its own.
	Issue *Issue `json:"issue,omitempty"`
}

// Millis is a duration persisted as whole milliseconds.
type Millis int64

// Duration converts to a [time.Duration].
func (m Millis) Duration() time.Duration { return time.Duration(m) * time.Millisecond }

// MillisOf converts a [time.Duration].
func MillisOf(d time.Duration) Millis { return Millis(d / time.Millisecond) }

// Spend is what a run consumed, over every session; resume never resets it.
type Spend struct {
	Usage evidence.Usage `json:"usage"`
	Wall  Millis         `json:"wall_ms"`
	// CountedTo is the moment up to which the run's time is in Wall: the end
	// of the last step counted. While the run goes on, the time since (or
	// since its session started, when later) is not counted yet.
	CountedTo time.Time `json:"counted_to,omitzero"`
	Waited    Millis    `json:"waited_ms,omitempty"` // rate-limit waits
	// Paused is how long iterations paused until an account's usage limit
	// reset (a part of Waited): not billed, it is not in Wall.
	Paused   Millis         `json:"paused_ms,omitempty"`
	Reviewer evidence.Usage `json:"reviewer_usage"`
}

// Total is the run's one spend: what the agent (and any fallback agent that
// stood in for it) and the reviewer used, over every session and every cut
// attempt. Every budget — the run's, a task's, a graph's — judges this figure.
func (s Spend) Total() evidence.Usage { return s.Usage.Add(s.Reviewer) }

// Interrupted is an agent attempt cut short by Ctrl-C, a crash or a kill: when
// it started, how long its agent ran, what its agent's transcript tells of its
// spend (tokens and cost unknown when it tells nothing), and the checkpoints of
// the tree it started from and of what it left.
type Interrupted struct {
	Seq       int            `json:"seq,omitempty"`
	Segment   int            `json:"segment,omitempty"`
	Iteration int            `json:"iteration"`
	StartedAt time.Time      `json:"started_at"`
	Duration  Millis         `json:"duration_ms"`
	Usage     evidence.Usage `json:"usage"`
	// Reviewer is what the attempt's reviewer spent before it was cut (a
	// kill after the review, before the state recorded the iteration).
	Reviewer evidence.Usage `json:"reviewer,omitzero"`
	Start    string         `json:"start,omitempty"` // the checkpoint it started from
	Cut      string         `json:"cut,omitempty"`   // the checkpoint of the tree it left, "" when none was taken
	Reason   string         `json:"reason,omitempty"`
}

// Undo is a cut attempt's work left in the tree, to undo before the next
// attempt: Start is where it started, Cut what it left ("" when a crash left no
// checkpoint of it).
type Undo struct {
	Seq   int    `json:"seq"`
	Start string `json:"start"`
	Cut   string `json:"cut,omitempty"`
}

// Handoff kinds: how a person took part in a run.
const (
	HandoffStart    = "start"    // the run started
	HandoffResume   = "resume"   // a session resumed it
	HandoffGuidance = "guidance" // an answer to an escalation: a new segment
	HandoffGuide    = "guide"    // guidance given to the running loop (agentloop guide): same segment
	HandoffAccept   = "accept"   // the person kept the work and ended the run
	HandoffAbort    = "abort"    // the person ended the run
)

// Handoff is one moment a person took part in a run, kept in its history.
type Handoff struct {
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
	By   string    `json:"by,omitempty"`   // who: user@host
	Text string    `json:"text,omitempty"` // the guidance
	// After is the number of the last agent attempt before it; Segment the
	// segment it starts or ends.
	After        int    `json:"after"`
	Segment      int    `json:"segment"`
	Architecture bool   `json:"architecture,omitempty"`
	Checkpoint   string `json:"checkpoint,omitempty"` // the commit the tree was at (guidance: the segment starts from it; accept: left at)
	// ID (guide) is the queued guidance's own name: guidance already in the
	// history is never applied again (a crash after it was applied, before
	// its queue entry was removed).
	ID string `json:"id,omitempty"`
	// Iteration (guide) is the iteration of the segment whose prompt first
	// carries it: "guidance applied in iteration 4".
	Iteration int `json:"iteration,omitempty"`
}

// Logged counts the entries of a state's growing lists that the run's history
// log already holds (see package state): a save appends only what follows.
type Logged struct {
	History     int `json:"history"`
	Interrupted int `json:"interrupted"`
	Handoffs    int `json:"handoffs"`
}

// Session is one process's stretch of a run.
type Session struct {
	StartedAt  time.Time `json:"started_at"`
	EndedAt    time.Time `json:"ended_at,omitzero"`
	Iterations int       `json:"iterations"`
	Status     Status    `json:"status,omitempty"`
	Reason     string    `json:"reason,omitempty"`
}

// Record is the persisted summary of one iteration: what the decision engine needs
// of the past and what reports show.
type Record struct {
	N           int            `json:"n"`             // the iteration's number in its segment
	Seq         int            `json:"seq,omitempty"` // the attempt's number in the run (its folder and refs)
	Segment     int            `json:"segment,omitempty"`
	Attempt     int            `json:"attempt,omitempty"`
	StartedAt   time.Time      `json:"started_at"`
	Duration    Millis         `json:"duration_ms"`
	Succeeded   bool           `json:"succeeded"`
	AgentExit   int            `json:"agent_exit"`
	AgentReason string         `json:"agent_reason,omitempty"`
	Usage       evidence.Usage `json:"usage"`                 // the agent's (and a fallback's)
	ReviewUsage evidence.Usage `json:"review_usage,omitzero"` // the reviewer's
	Gates       []GateSummary  `json:"gates,omitempty"`
	Failing     []string       `json:"failing,omitempty"` // failure keys, sorted
	// OutsideTask are the failures the decider found outside the task
	// ([Decision.OutsideTask]): there before the run, not the run's.
	OutsideTask []string `json:"outside_task,omitempty"`
	Fingerprint string   `json:"fingerprint,omitempty"`
	DiffHash    string   `json:"diff_hash,omitempty"`
	TreeHash    string   `json:"tree_hash,omitempty"`
	DiffLines   int      `json:"diff_lines,omitempty"`
	Review      string   `json:"review,omitempty"` // verdict
	ReviewScore float64  `json:"review_score,omitempty"`
	Quality     float64  `json:"quality"`
	Decision    string   `json:"decision,omitempty"`
	Strategy    string   `json:"strategy,omitempty"`
	Triggers    []string `json:"triggers,omitempty"`
	Summary     string   `json:"summary,omitempty"` // one line: what the agent did
	Checkpoint  string   `json:"checkpoint,omitempty"`
}

// GateSummary is one gate's outcome in a [Record].
type GateSummary struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	Passed   bool   `json:"passed"`
	Infra    bool   `json:"infra,omitempty"`
	ExitCode int    `json:"exit_code"`
	Failures int    `json:"failures"`
	// Keys are the gate's failure keys (fingerprint keys, no line numbers),
	// sorted: the agent's and those the baseline already had (records of older
	// builds hold only the agent's). Failures counts only the agent's.
	Keys []string `json:"keys,omitempty"`
	// OutputProblems is what of its output could not be read (see
	// [evidence.GateResult.OutputProblems]).
	OutputProblems string `json:"output_problems,omitempty"`
	// RerunNote is what the gate's flaky check did (see
	// [evidence.GateResult.RerunNote]).
	RerunNote string `json:"rerun_note,omitempty"`
}

// Next is what the decision asked of the next iteration.
type Next struct {
	Strategy string   `json:"strategy,omitempty"`
	Attempt  int      `json:"attempt,omitempty"`
	Lessons  []string `json:"lessons,omitempty"`
	Focus    string   `json:"focus,omitempty"`
	Expand   []string `json:"expand,omitempty"`
	Agent    string   `json:"agent,omitempty"`
	Timeout  Millis   `json:"timeout_ms,omitempty"`
	// AwaitReset, when set, is the usage limit's reset of the configured
	// agent: the next iteration waits for it and runs on that agent, not on
	// a fallback (whose iterations made no progress meanwhile).
	AwaitReset time.Time `json:"await_reset,omitzero"`
}

// Checkpoint is a saved work-tree state.
type Checkpoint struct {
	Iteration int     `json:"iteration"`
	Seq       int     `json:"seq,omitempty"` // the attempt it is the end of
	Ref       string  `json:"ref"`
	Quality   float64 `json:"quality"`
}

// Label names the checkpoint's iteration for people: "iteration 2 (attempt 5)".
func (c Checkpoint) Label() string {
	if c.Seq > 0 && c.Seq != c.Iteration {
		return fmt.Sprintf("iteration %d (attempt %d)", c.Iteration, c.Seq)
	}
	return fmt.Sprintf("iteration %d", c.Iteration)
}

// Resumed is whether a session of the run goes on from an earlier one: an
// earlier session was started (even one stopped before its first attempt, as
// by Ctrl-C during the baseline), an attempt was made or the baseline is known.
// The session's own entry is in Sessions already when its loop starts.
func (s *State) Resumed() bool {
	return len(s.Sessions) > 1 || s.Attempts > 0 || s.BaselineDone
}

// Elapsed is how long the run has been at work: the one figure that status,
// the final line, the reports, the events and the wall-time budget share. It
// is the time of every session's steps — the baseline, every iteration, and
// those cut short by Ctrl-C, a crash or a kill — and, while the run is still
// running, the time since the last step counted (now is only read then).
// Time between sessions (a run waiting for a human) is not counted.
func (s *State) Elapsed(now time.Time) time.Duration {
	d := s.Spend.Wall.Duration()
	if s.Status != StatusRunning || now.IsZero() {
		return d
	}
	from := s.Spend.CountedTo
	if n := len(s.Sessions); n > 0 && s.Sessions[n-1].StartedAt.After(from) {
		from = s.Sessions[n-1].StartedAt
	}
	if from.IsZero() || !now.After(from) {
		return d
	}
	return d + now.Sub(from)
}

// Count adds a step's time, from started to finished, to the run's wall time,
// less what it paused for a usage limit (not billed).
func (s *State) Count(started, finished time.Time, paused time.Duration) {
	if started.IsZero() || !finished.After(started) {
		return
	}
	paused = min(max(paused, 0), finished.Sub(started))
	s.Spend.Wall += MillisOf(finished.Sub(started) - paused)
	s.Spend.Paused += MillisOf(paused)
	if finished.After(s.Spend.CountedTo) {
		s.Spend.CountedTo = finished
	}
}

// Validate reports what makes a loaded state unusable.
func (s *State) Validate() error {
	var errs []error
	if s.Version < 1 || s.Version > StateVersion {
		errs = append(errs, fmt.Errorf("version %d is not one this build reads (1..%d)", s.Version, StateVersion))
	}
	if s.Name == "" {
		errs = append(errs, errors.New("name is empty"))
	}
	if s.Iteration < 0 || s.ConsecutiveFailures < 0 || s.MaxIterations < 0 {
		errs = append(errs, errors.New("negative counter"))
	}
	switch s.Status {
	case StatusRunning, StatusSucceeded, StatusCompleted, StatusAborted, StatusEscalated, StatusInterrupted:
	default:
		errs = append(errs, fmt.Errorf("unknown status %q", s.Status))
	}
	return errors.Join(errs...)
}
