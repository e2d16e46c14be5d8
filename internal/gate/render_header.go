package gate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// kindNouns name the failures of each kind that is no test, in the header.
var kindNouns = map[evidence.Kind]string{
	evidence.KindBuild: "build error", evidence.KindType: "type error", evidence.KindLint: "lint finding",
	evidence.KindTamper: "weakened test", evidence.KindGate: "failure with no parsable output",
}

// header is a failing gate's first line: its name, command, exit code, what
// failed in words ("2 build errors, 29 failing tests in 3 packages"), the
// change since the previous iteration and the baseline.
func header(r evidence.GateResult, d Delta, withCommand bool) string {
	counts := map[evidence.Kind]int{}
	var tests []evidence.Finding
	for _, f := range r.Findings {
		if isTestKind(f.Kind) {
			tests = append(tests, f)
		} else {
			counts[f.Kind]++
		}
	}
	var parts []string
	for _, k := range []evidence.Kind{evidence.KindBuild, evidence.KindType, evidence.KindTest, evidence.KindGate, evidence.KindTamper, evidence.KindLint} {
		switch {
		case k == evidence.KindTest && len(tests) > 0:
			parts = append(parts, testCount(tests))
		case counts[k] > 0:
			parts = append(parts, countNoun(counts[k], kindNouns[k]))
		}
	}
	if len(r.Preexisting) > 0 {
		parts = append(parts, fmt.Sprintf("%d already failing", len(r.Preexisting)))
	}
	state := "failed"
	if r.Passed {
		state = "passed"
	}
	h := r.Name
	if r.Command != "" && withCommand {
		h += " (" + textcut.Runes(r.Command, 40) + ")"
	}
	if r.ExitCode < 0 {
		h += " " + state // saved output read without its exit code
	} else {
		h += fmt.Sprintf(" %s (exit %d)", state, r.ExitCode)
	}
	if len(parts) > 0 {
		h += ": " + strings.Join(parts, ", ")
	}
	if len(d.New)+len(d.Fixed)+len(d.Still) > 0 {
		h += fmt.Sprintf(" vs prev: %d new, %d fixed, %d still failing", len(d.New), len(d.Fixed), len(d.Still))
		if m := d.maxStreak(); m > 1 {
			h += " (" + strconv.Itoa(m) + "×)"
		}
	}
	if len(r.Fixed) > 0 {
		h += fmt.Sprintf("; %d fixed since the baseline", len(r.Fixed))
	}
	return h
}
