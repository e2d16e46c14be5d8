package evidence

import (
	"fmt"
	"strings"
	"time"
)

// AgentResult is the outcome of one agent process.
type AgentResult struct {
	Agent        string        `json:"agent"` // preset or command name
	ExitCode     int           `json:"exit_code"`
	Signal       string        `json:"signal,omitempty"`
	TimedOut     bool          `json:"timed_out,omitempty"`
	IdleTimedOut bool          `json:"idle_timed_out,omitempty"`
	StartFailed  bool          `json:"start_failed,omitempty"` // the binary could not be started
	Duration     time.Duration `json:"duration_ns"`
	OutputBytes  int64         `json:"output_bytes"`
	LogPath      string        `json:"log_path,omitempty"`
	Usage        Usage         `json:"usage"`
	Result       string        `json:"result,omitempty"`       // the final answer text, when the CLI gives one
	Terminal     bool          `json:"terminal,omitempty"`     // the stream ended with its terminal record
	Completed    bool          `json:"completed,omitempty"`    // the agent printed the completion marker
	RateLimited  bool          `json:"rate_limited,omitempty"` // the CLI reported a rate limit or overload
	ResetAt      time.Time     `json:"reset_at,omitzero"`      // when the limit lifts, if the CLI said
	Transient    bool          `json:"transient,omitempty"`    // crash before output, network error: retry, don't count
	Reason       string        `json:"reason,omitempty"`       // one line on a failure, for people: the CLI's own words where it gave any
	Tail         string        `json:"tail,omitempty"`
	Outcome      AgentOutcome  `json:"outcome,omitempty"` // what happened, decided by the agent package
	Fix          string        `json:"fix,omitempty"`     // what to set or install, when the outcome stops the run
	// Retries counts the failed provider requests the CLI itself retried (it
	// said so while running: Claude Code's api_retry); LastRetry is the last,
	// "rate limited, retry 3/10 in 2s (HTTP 429 rate_limit)".
	Retries   int    `json:"retries,omitempty"`
	LastRetry string `json:"last_retry,omitempty"`
	// LeftBehind counts the processes the agent left running outside its
	// process group (setsid, env -i) when it ended; agentloop killed them.
	LeftBehind int `json:"left_behind,omitempty"`
	// StandInFor is the agent this one stood in for (its fallback ran) while
	// that agent's account was at its usage limit, until StandInUntil, its
	// reset: the iteration is the stand-in's, weak evidence of the loop's
	// course when the agent it replaces is back soon.
	StandInFor   string    `json:"stand_in_for,omitempty"`
	StandInUntil time.Time `json:"stand_in_until,omitzero"`
}

// Summary is the outcome and the agent's last words in one line, for the
// iteration line, the decision, the report and the escalation:
// "authentication or configuration error: Invalid API key · Please run /login".
func (a AgentResult) Summary() string {
	o := a.Outcome
	if o == "" {
		switch {
		case a.StartFailed:
			o = OutcomeNotInstalled
		case a.TimedOut || a.IdleTimedOut:
			o = OutcomeTimedOut
		case a.RateLimited:
			o = OutcomeRateLimited
		case a.Transient:
			o = OutcomeTransient
		case a.Failed():
			o = OutcomeFailed
		default:
			o = OutcomeSucceeded
		}
	}
	reason := a.Reason
	if reason == "" && a.Failed() {
		reason = fmt.Sprintf("exit %d", a.ExitCode)
	}
	switch {
	case reason == "":
		return o.Text()
	case strings.HasPrefix(reason, o.Text()):
		return reason // "timed out after 30m"
	}
	return o.Text() + ": " + reason
}

// Failed reports whether the agent run failed (non-zero exit, timeout or no start).
func (a AgentResult) Failed() bool {
	return a.ExitCode != 0 || a.TimedOut || a.IdleTimedOut || a.StartFailed || a.Signal != ""
}
