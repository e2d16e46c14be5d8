package loop

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
)

// StateVersion is the schema version of [State] written by this build.
const StateVersion = 1

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
	Version             int                   `json:"version"`
	Name                string                `json:"name"`
	RunID               string                `json:"run_id"`
	Procedure           string                `json:"procedure_name"`
	Status              Status                `json:"status"`
	Reason              string                `json:"reason,omitempty"`
	Iteration           int                   `json:"iteration"` // iterations finished in this run (counter, reset by guidance)
	TotalIterations     int                   `json:"total_iterations"`
	MaxIterations       int                   `json:"max_iterations"`
	ConsecutiveFailures int                   `json:"consecutive_failures"`
	FailureThreshold    int                   `json:"failure_threshold"`
	StartedAt           time.Time             `json:"started_at"`
	LastIterationAt     time.Time             `json:"last_iteration_at,omitzero"`
	ElapsedPerIteration []Millis              `json:"elapsed_per_iteration_ms"`
	Spend               Spend                 `json:"spend"`
	Sessions            []Session             `json:"sessions,omitempty"`
	History             []Record              `json:"history,omitempty"`
	Baseline            []evidence.GateResult `json:"baseline,omitempty"`
	// Interrupted are the iterations that Ctrl-C, a crash or a kill cut
	// short; their time and known spend are in Spend.
	Interrupted  []Interrupted `json:"interrupted,omitempty"`
	BaselineDone bool          `json:"baseline_done,omitempty"`
	Feedback     string        `json:"feedback,omitempty"` // for the next prompt
	Guidance     string        `json:"guidance,omitempty"` // for the next prompt
	Next         Next          `json:"next"`               // what the next iteration does
	Best         *Checkpoint   `json:"best,omitempty"`
	// Args are the command-line flags the run was started with, so that resume
	// runs it the same way (the same agent, gates and limits).
	Args []string `json:"args,omitempty"`
	// WorkDir is the work tree the agent runs in (a task's worktree), when it is
	// not the folder agentloop was started from.
	WorkDir string `json:"work_dir,omitempty"`
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
	CountedTo time.Time      `json:"counted_to,omitzero"`
	Waited    Millis         `json:"waited_ms,omitempty"` // rate-limit waits
	Reviewer  evidence.Usage `json:"reviewer_usage"`
}

// Interrupted is an iteration cut short by Ctrl-C, a crash or a kill: when it started,
// how long it ran as far as its files tell, and what its agent's transcript
// tells of its spend (tokens and cost unknown when it tells nothing).
type Interrupted struct {
	Iteration int            `json:"iteration"`
	StartedAt time.Time      `json:"started_at"`
	Duration  Millis         `json:"duration_ms"`
	Usage     evidence.Usage `json:"usage"`
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
	N           int            `json:"n"`
	Attempt     int            `json:"attempt,omitempty"`
	StartedAt   time.Time      `json:"started_at"`
	Duration    Millis         `json:"duration_ms"`
	Succeeded   bool           `json:"succeeded"`
	AgentExit   int            `json:"agent_exit"`
	AgentReason string         `json:"agent_reason,omitempty"`
	Usage       evidence.Usage `json:"usage"`
	Gates       []GateSummary  `json:"gates,omitempty"`
	Failing     []string       `json:"failing,omitempty"` // failure keys, sorted
	Fingerprint string         `json:"fingerprint,omitempty"`
	DiffHash    string         `json:"diff_hash,omitempty"`
	TreeHash    string         `json:"tree_hash,omitempty"`
	DiffLines   int            `json:"diff_lines,omitempty"`
	Review      string         `json:"review,omitempty"` // verdict
	ReviewScore float64        `json:"review_score,omitempty"`
	Quality     float64        `json:"quality"`
	Decision    string         `json:"decision,omitempty"`
	Strategy    string         `json:"strategy,omitempty"`
	Triggers    []string       `json:"triggers,omitempty"`
	Summary     string         `json:"summary,omitempty"` // one line: what the agent did
	Checkpoint  string         `json:"checkpoint,omitempty"`
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
}

// Checkpoint is a saved work-tree state.
type Checkpoint struct {
	Iteration int     `json:"iteration"`
	Ref       string  `json:"ref"`
	Quality   float64 `json:"quality"`
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

// count adds a step's time, from started to finished, to the run's wall time.
func (s *State) count(started, finished time.Time) {
	if started.IsZero() || !finished.After(started) {
		return
	}
	s.Spend.Wall += MillisOf(finished.Sub(started))
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
