package evidence

import (
	"fmt"
	"strings"
	"time"

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
