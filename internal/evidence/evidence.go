// Package evidence holds the facts agentloop gathers about one iteration: what the
// agent did and spent, what the gates found, how the work tree changed and what the
// reviewer said. It is plain data shared by the producers (agent, gate, diff,
// review) and the consumers (decide, loop, report); it does no I/O.
package evidence

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/textcut"
)

// Kind classifies a finding by what blocks progress most.
type Kind string

// Finding kinds, in the order feedback lists them.
const (
	KindBuild   Kind = "build"   // compile, syntax, collection or suite-load failure
	KindCrash   Kind = "crash"   // panic, did not finish, race, os.Exit
	KindTimeout Kind = "timeout" // a test or gate ran out of time
	KindTest    Kind = "test"    // an assertion failure
	KindType    Kind = "type"    // a type checker finding (tsc, mypy)
	KindLint    Kind = "lint"    // a linter finding
	KindTamper  Kind = "tamper"  // the agent weakened the tests
	KindGate    Kind = "gate"    // a gate failed with no parsable failure: keyed on its output's tail
)

// Severity levels of a finding.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Finding is one normalized failure, whatever tool reported it.
type Finding struct {
	Kind     Kind   `json:"kind" yaml:"kind"`
	Tool     string `json:"tool" yaml:"tool"`                     // go, jest, eslint, tsc, …
	ID       string `json:"id,omitempty" yaml:"id,omitempty"`     // test id or rule id
	File     string `json:"file,omitempty" yaml:"file,omitempty"` // relative to the work tree
	Line     int    `json:"line,omitempty" yaml:"line,omitempty"`
	Col      int    `json:"col,omitempty" yaml:"col,omitempty"`
	Message  string `json:"message" yaml:"message"`
	Severity string `json:"severity" yaml:"severity"`
	Flaky    bool   `json:"flaky,omitempty" yaml:"flaky,omitempty"` // failed, then passed on rerun
	Key      string `json:"key,omitempty" yaml:"key,omitempty"`     // fingerprint key (no line numbers)
	// Unit and Test name a failed test the way its runner selects it again,
	// when the output says so: Unit is what the runner runs (a Go package's
	// import path, a test file, a Rust test target, a JUnit class), Test the
	// test's own name inside it ("TestRead/quoted", "TestAuth::test_login[a]",
	// "login › rejects a bad token"). Both empty for a finding that is no test.
	Unit string `json:"unit,omitempty" yaml:"unit,omitempty"`
	Test string `json:"test,omitempty" yaml:"test,omitempty"`
}

// TestCounts counts test cases a gate reported.
type TestCounts struct {
	Passed  int `json:"passed" yaml:"passed"`
	Failed  int `json:"failed" yaml:"failed"`
	Skipped int `json:"skipped" yaml:"skipped"`
}

// GateResult is the judged outcome of one gate run.
type GateResult struct {
	Name        string        `json:"name"`
	Command     string        `json:"command"`
	Required    bool          `json:"required"`
	ExitCode    int           `json:"exit_code"`
	Passed      bool          `json:"passed"`                 // judged on exit code, report and tail together
	Infra       bool          `json:"infra,omitempty"`        // could not start or be judged: not a finding of the agent's code
	InfraReason string        `json:"infra_reason,omitempty"` // why, when Infra
	NotStarted  bool          `json:"not_started,omitempty"`  // Infra: not found, not executable, or a shell's exit 126/127
	Format      string        `json:"format,omitempty"`       // parser used (detected or configured)
	Duration    time.Duration `json:"duration_ns"`
	// TimedOut is the time limit the gate ran out of (0: it ended by
	// itself); it then failed, with a finding that says so.
	TimedOut time.Duration `json:"timed_out_ns,omitempty"`
	LogPath  string        `json:"log_path,omitempty"`
	// FailuresPath is the file that lists every failure of this run of the
	// gate with its whole message (gate.FailureList), relative to the work
	// tree when it is inside it, for the agent to read what the feedback
	// could only count; "" when nothing failed or nothing wrote it.
	FailuresPath string     `json:"failures_path,omitempty"`
	Tests        TestCounts `json:"tests"`
	Findings     []Finding  `json:"findings,omitempty"`    // failures that count (new beyond the baseline by default)
	Preexisting  []Finding  `json:"preexisting,omitempty"` // failures already in the baseline, listed apart
	Fixed        []string   `json:"fixed,omitempty"`       // keys of baseline failures now gone (progress)
	// Flaky are failures that did not repeat: the gate's own rerun, or the
	// run of the gate again, passed them. They do not count.
	Flaky []Finding `json:"flaky,omitempty"`
	// RerunNote says what the flaky check did when the gate failed: which
	// tests it ran again and how they ended, or why it ran nothing again.
	RerunNote     string        `json:"rerun_note,omitempty"`
	RerunDuration time.Duration `json:"rerun_duration_ns,omitempty"` // the flaky check's run, beside Duration
	RerunLog      string        `json:"rerun_log,omitempty"`
	Fingerprint   string        `json:"fingerprint,omitempty"` // hash of the sorted failure keys; empty when green
	Tail          string        `json:"tail,omitempty"`        // last lines of the raw output, ANSI stripped
	// ParseErrors say what in the output its parser could not read; shown to
	// people (and in feedback when the gate fails), never counted as findings.
	ParseErrors []string `json:"parse_errors,omitempty"`
	Dropped     int      `json:"dropped,omitempty"` // findings left out past the parser's cap
}

// OutputProblems says in one line what of the gate's output could not be read
// or was left out past the parser's cap, "" when nothing was:
// `3 lines could not be parsed as gotest-json: "…"; 12 more findings left out`.
func (g GateResult) OutputProblems() string {
	parts := append([]string(nil), g.ParseErrors...)
	switch {
	case g.Dropped == 1:
		parts = append(parts, "1 more finding left out")
	case g.Dropped > 1:
		parts = append(parts, fmt.Sprintf("%d more findings left out", g.Dropped))
	}
	return textcut.Runes(strings.Join(parts, "; "), 300)
}

// Usage is what one agent run consumed. A field whose Known flag is false was not
// reported by the CLI and must be shown as "unknown", never as 0.
type Usage struct {
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	TokensKnown      bool    `json:"tokens_known"`
	CostUSD          float64 `json:"cost_usd"`
	CostKnown        bool    `json:"cost_known"`
	CostEstimated    bool    `json:"cost_estimated,omitempty"` // from the price table, not reported by the CLI
	Turns            int     `json:"turns,omitempty"`
	Model            string  `json:"model,omitempty"`
	SessionID        string  `json:"session_id,omitempty"`
}

// Cost is the cost of one iteration from its agent (and reviewer) usage and
// its wall time d.
func (u Usage) Cost(d time.Duration) budget.Cost {
	return budget.Cost{Tokens: u.TotalTokens(), TokensKnown: u.TokensKnown, CostUSD: u.CostUSD, CostKnown: u.CostKnown, Duration: d}
}

// Spent is what a run spent, from its summed usage ([Usage.Add] over the
// iterations), wall time and iteration count. Usage whose tokens or cost were
// not all reported stays marked unknown.
func (u Usage) Spent(wall time.Duration, iterations int) budget.Spent {
	return budget.Spent{Tokens: u.TotalTokens(), TokensKnown: u.TokensKnown, CostUSD: u.CostUSD, CostKnown: u.CostKnown,
		Duration: wall, Iterations: iterations}
}

// TotalTokens is the sum of every token kind (saturating, see [AddTokens]).
func (u Usage) TotalTokens() int64 {
	return AddTokens(AddTokens(u.InputTokens, u.OutputTokens), AddTokens(u.CacheReadTokens, u.CacheWriteTokens))
}

// AddTokens adds two token counts, stopping at the largest int64 instead of
// wrapping round to a negative number: the counts come from an agent's output,
// and an absurd figure must never turn into a negative spend.
func AddTokens(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// Add returns the sum of two usages. A figure stays known only when it is known
// on both sides; adding to the zero Usage (nothing recorded yet) takes the
// other's flags, so a total starts from its first part.
func (u Usage) Add(v Usage) Usage {
	if u.IsZero() {
		return v
	}
	if v.IsZero() {
		return u
	}
	out := Usage{
		InputTokens:      AddTokens(u.InputTokens, v.InputTokens),
		OutputTokens:     AddTokens(u.OutputTokens, v.OutputTokens),
		CacheReadTokens:  AddTokens(u.CacheReadTokens, v.CacheReadTokens),
		CacheWriteTokens: AddTokens(u.CacheWriteTokens, v.CacheWriteTokens),
		TokensKnown:      u.TokensKnown && v.TokensKnown,
		CostUSD:          u.CostUSD + v.CostUSD,
		CostKnown:        u.CostKnown && v.CostKnown,
		CostEstimated:    u.CostEstimated || v.CostEstimated,
		Turns:            u.Turns + v.Turns,
		Model:            v.Model,
		SessionID:        v.SessionID,
	}
	if out.Model == "" {
		out.Model = u.Model
	}
	return out
}

// IsZero reports whether nothing was recorded in u.
func (u Usage) IsZero() bool { return u == Usage{} }

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

// DiffFacts describes how an iteration changed the work tree.
type DiffFacts struct {
	Hash             string    `json:"hash,omitempty"`      // of the normalized diff against the iteration's start
	TreeHash         string    `json:"tree_hash,omitempty"` // of the resulting work tree: same code state, same hash
	Files            []string  `json:"files,omitempty"`
	Added            int       `json:"added"`
	Deleted          int       `json:"deleted"`
	TestFilesChanged []string  `json:"test_files_changed,omitempty"`
	TestFilesDeleted []string  `json:"test_files_deleted,omitempty"`
	SkipsAdded       int       `json:"skips_added,omitempty"`
	AssertsRemoved   int       `json:"asserts_removed,omitempty"`
	TestsRemoved     []string  `json:"tests_removed,omitempty"` // the tests whose declaration was removed, by name
	ProtectedTouched []string  `json:"protected_touched,omitempty"`
	OutsideScope     []string  `json:"outside_scope,omitempty"`
	NewDeps          []string  `json:"new_deps,omitempty"`
	ExportedChanged  []string  `json:"exported_changed,omitempty"` // exported symbols added, removed or changed
	SecretsFound     int       `json:"secrets_found,omitempty"`
	Tamper           []Finding `json:"tamper,omitempty"` // the test-tampering findings, with where
	// SinceStart are the facts of the diff from the run's start to the same
	// tree: what the run as a whole did to the tests, which an iteration that
	// changes nothing after one that deleted them does not show. Nil when the
	// iteration's diff is the run's (its first).
	SinceStart *DiffFacts `json:"since_start,omitempty"`
}

// Empty reports whether the iteration changed nothing.
func (d DiffFacts) Empty() bool { return len(d.Files) == 0 && d.Added == 0 && d.Deleted == 0 }

// Review verdicts.
const (
	VerdictApprove        = "approve"
	VerdictRequestChanges = "request_changes"
	VerdictReject         = "reject"
	VerdictUnknown        = "unknown"
)

// ReviewFinding is one concern the reviewer raised.
type ReviewFinding struct {
	ID       string `json:"id,omitempty" yaml:"id,omitempty"`
	Severity string `json:"severity" yaml:"severity"` // blocker | major | minor | nit
	File     string `json:"file,omitempty" yaml:"file,omitempty"`
	Line     int    `json:"line,omitempty" yaml:"line,omitempty"`
	Message  string `json:"msg" yaml:"msg"`
	FixHint  string `json:"fix_hint,omitempty" yaml:"fix_hint,omitempty"`
}

// Review is the reviewer agent's verdict.
type Review struct {
	Verdict    string          `json:"verdict"`
	Score      float64         `json:"score"` // 0–10
	Tags       []string        `json:"tags,omitempty"`
	Findings   []ReviewFinding `json:"findings,omitempty"`
	Confidence float64         `json:"confidence,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	Usage      Usage           `json:"usage"`
	Round      int             `json:"round"`
}

// Approved reports whether the reviewer approved.
func (r Review) Approved() bool { return r.Verdict == VerdictApprove }

// Iteration is everything observed in one iteration.
type Iteration struct {
	N        int          `json:"n"`
	Started  time.Time    `json:"started"`
	Finished time.Time    `json:"finished"`
	Agent    AgentResult  `json:"agent"`
	Gates    []GateResult `json:"gates,omitempty"`
	Diff     DiffFacts    `json:"diff"`
	Review   *Review      `json:"review,omitempty"`
	// Records is what the agent did to agentloop's records in git (its
	// checkpoint refs, the branch, HEAD), each with what agentloop put back.
	Records RecordChanges `json:"records,omitempty"`
}

// Duration is the wall time of the iteration.
func (it Iteration) Duration() time.Duration { return it.Finished.Sub(it.Started) }

// Spend is what the iteration used: its agent's usage (a fallback's
// included) and its reviewer's.
func (it Iteration) Spend() Usage {
	if it.Review == nil {
		return it.Agent.Usage
	}
	return it.Agent.Usage.Add(it.Review.Usage)
}

// RequiredGatesPassed reports whether every required gate passed (true when there are none).
func (it Iteration) RequiredGatesPassed() bool {
	for _, g := range it.Gates {
		if g.Required && !g.Passed {
			return false
		}
	}
	return true
}
