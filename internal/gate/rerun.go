package gate

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Rerun modes: what a required gate whose tests failed does to tell a flaky
// test from a real failure before anything is decided.
const (
	// RerunFailed runs only the failed tests again, with the runner's own
	// selector (the default). A command whose runner agentloop cannot select
	// tests of is not run again: its failures count as they are.
	RerunFailed = "failed"
	// RerunWhole runs the gate's whole command again.
	RerunWhole = "whole"
	// RerunOff runs nothing again: every failure counts.
	RerunOff = "off"
)

// RerunModes lists the values a gate's rerun: key takes, the default first.
func RerunModes() []string { return []string{RerunFailed, RerunWhole, RerunOff} }

// RerunPlan is a gate's command rewritten to run only some of its failed
// tests again.
type RerunPlan struct {
	Argv     []string           // what to run: the gate's argv with the runner's selectors
	Command  string             // the same, as a person reads it
	Runner   string             // the test runner rewritten ("go test", "pytest", …)
	Selected []evidence.Finding // the failures it runs again
	Units    []string           // the packages or files it names
	// Left are failures no selector names (a package's own crash, a test
	// the output gives no name for): not run again, they count as they are.
	Left []evidence.Finding
}

// ErrNoSelector is wrapped by [PlanRerun]'s errors that come from the gate's
// command or output rather than from the failures: the command is a wrapper
// agentloop cannot see into, or its runner cannot select tests by name.
var ErrNoSelector = errors.New("cannot select tests by name")

// rerunner knows one test runner's command line.
type rerunner struct {
	name string
	// rewrite returns the arguments after the runner's own words (args),
	// changed to run only sel; units are what they name.
	rewrite func(args []shWord, sel []evidence.Finding) ([]shWord, []string, error)
	// selectable reports whether the runner can name a failure alone.
	selectable func(f evidence.Finding) bool
}

// PlanRerun rewrites a gate's command (argv, ["sh", "-c", LINE] for a shell
// line) to run only the failed tests among fails again, with the test
// runner's own selector: go test -run, gotestsum, pytest node ids, jest and
// vitest file paths and -t, cargo test --exact, Maven -Dtest, Gradle --tests,
// node --test-name-pattern, prove's files. A shell line may hold other
// commands (cd, a pipe into a report converter): only the runner's words
// change. An error wrapping [ErrNoSelector] says why the command cannot be
// rewritten, in words for people; no failure selectable is an error too.
func PlanRerun(argv []string, fails []evidence.Finding) (RerunPlan, error) {
	words, rebuild, err := commandWords(argv)
	if err != nil {
		return RerunPlan{}, err
	}
	r, n, err := findRunner(words)
	if err != nil {
		return RerunPlan{}, err
	}
	var plan RerunPlan
	plan.Runner = r.name
	for _, f := range fails {
		if f.Unit != "" && r.selectable(f) {
			plan.Selected = append(plan.Selected, f)
		} else {
			plan.Left = append(plan.Left, f)
		}
	}
	if len(plan.Selected) == 0 {
		return RerunPlan{}, fmt.Errorf("%w: the output names no failed test %s can run by name", ErrNoSelector, r.name)
	}
	args, units, err := r.rewrite(words[n:], plan.Selected)
	if err != nil {
		return RerunPlan{}, fmt.Errorf("%w: %s: %v", ErrNoSelector, r.name, err)
	}
	plan.Units = units
	plan.Argv, plan.Command = rebuild(append(slices.Clone(words[:n]), args...))
	return plan, nil
}

// CanRerun says, before any failure, whether [PlanRerun] can rewrite a
// gate's command: nil, or the error (wrapping [ErrNoSelector]) that says why not.
func CanRerun(argv []string) error {
	words, _, err := commandWords(argv)
	if err != nil {
		return err
	}
	_, _, err = findRunner(words)
	return err
}

// RerunWarning is [CanRerun]'s error for a command that seems to run tests
// (a word of it says test or spec: npm test, make test, ./run-tests.sh),
// nil for one that can be rewritten or seems to run none (a linter, true).
func RerunWarning(argv []string) error {
	err := CanRerun(argv)
	if err == nil {
		return nil
	}
	words := argv
	if len(argv) == 3 && argv[1] == "-c" {
		words = strings.Fields(argv[2])
	}
	for i, w := range words {
		w = strings.ToLower(path.Base(w))
		if i == 0 && (w == "test" || w == "[") {
			continue
		}
		if strings.Contains(w, "test") || strings.Contains(w, "spec") {
			return err
		}
	}
	return nil
}
