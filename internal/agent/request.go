package agent

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/proc"
)

// Request is one agent run.
type Request struct {
	Preset  Preset
	Prompt  string
	Dir     string            // the work tree the agent runs in
	IterDir string            // where the prompt file and usage log go; "" = the log's directory
	Env     map[string]string // extra environment (wins over the preset's)
	LogPath string            // the agent's output (stdout and stderr), 0600
	Echo    io.Writer         // the terminal when verbose (a JSON stream told one line per text and tool call); nil otherwise
	// CompletionMarker, if set, marks the result Completed when the agent
	// printed it on a line of its own: in its final answer, or for text output
	// in more output lines than the prompt has (an echoed prompt does not count).
	CompletionMarker string
	Timeout          time.Duration
	// Deadline, when set, ends the run at that time even if Timeout has not
	// passed (an iteration's timeout counted from the iteration's start).
	Deadline    time.Time
	IdleTimeout time.Duration
	// Limits bound the run's live usage (MaxTokens, MaxCostUSD: reported cost,
	// or estimated from the price table; zero means none): crossing one ends the
	// agent and the result says why. The engine hands what the loop has left.
	Limits budget.Limits
	// OnRetry, if set, is told of each failed provider request the CLI says it
	// will retry (Claude Code's api_retry), while the agent runs, from the
	// goroutine reading its output. A retry of a request rejected as
	// unauthorised ends the agent at once with the authentication outcome.
	OnRetry func(Retry)
	// OnUsage, if set, is told the agent's usage so far each time an output
	// line changes it (the cost estimated from the price table when the CLI
	// gives none), from the goroutine reading its output: the live status.
	OnUsage func(evidence.Usage)
	// OnTool, if set, is told the tool call the agent started last, on one
	// line ("Bash: go test ./..."), and "" once it writes text again, each time
	// that changes, from the goroutine reading its output: the live status.
	// Only the JSON streams that name their tool calls tell it.
	OnTool func(string)
	// Sandbox, when set, runs the agent inside it; what it allows is the
	// first line of the agent's log.
	Sandbox Sandbox
}

// Sandbox runs an agent inside a sandbox (sandbox.Sandbox): Wrap returns the
// process to start instead, a line that says what the sandbox allows, and
// what to call once it has ended.
type Sandbox interface {
	Wrap(ctx context.Context, s proc.Spec) (wrapped proc.Spec, about string, done func(), err error)
}

// LimitError is the cancel cause when an agent crossed its per-run limit.
type LimitError struct {
	Resource string // "tokens" or "cost"
	Spent    string
	Limit    string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("iteration limit: the agent used %s of its %s limit of %s", e.Spent, e.Resource, e.Limit)
}

// effectiveTimeout is the run's timeout: Timeout, or less when the Deadline
// comes first.
func effectiveTimeout(req Request) time.Duration {
	t := req.Timeout
	if !req.Deadline.IsZero() {
		if left := time.Until(req.Deadline); t <= 0 || left < t {
			t = max(left, time.Millisecond)
		}
	}
	return t
}
