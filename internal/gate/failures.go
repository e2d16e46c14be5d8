package gate

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// FailureList is the whole account of a gate's failures that the feedback,
// capped, can only sum up: a line that says what it is, then every failure
// that counts, one a line "KIND id (file:line): message" with its whole
// message (as the parser kept it), then those the baseline already had and
// the flaky ones, each under its heading. It is "" for a gate with no
// failure to list. The engine writes it beside the gate's log and names it
// in the result's FailuresPath; [Render] names that file when the feedback
// leaves something out.
func FailureList(r evidence.GateResult) string {
	if len(r.Findings)+len(r.Preexisting)+len(r.Flaky) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Gate %s", r.Name)
	if r.Command != "" {
		fmt.Fprintf(&b, " (%s)", r.Command)
	}
	fmt.Fprintf(&b, ": %s", countNoun(len(r.Findings), "failure"))
	if r.LogPath != "" {
		fmt.Fprintf(&b, "; its whole output: %s", r.LogPath)
	}
	b.WriteString("\n")
	for _, part := range []struct {
		heading string
		fs      []evidence.Finding
	}{{"", r.Findings}, {preHeading, r.Preexisting}, {"Flaky (failed, then passed when run again; not counted):", r.Flaky}} {
		if len(part.fs) == 0 {
			continue
		}
		if part.heading != "" {
			b.WriteString("\n" + part.heading + "\n")
		}
		for i, f := range part.fs {
			prefix, msg := itemParts(i+1, f)
			b.WriteString(prefix + msg + "\n")
		}
	}
	return b.String()
}

// failuresLine names the file that lists every failure: "All 33 failures,
// each with its message: PATH".
func failuresLine(r evidence.GateResult) string {
	if r.FailuresPath == "" {
		return ""
	}
	return fmt.Sprintf("All %s, each with its message: %s", countNoun(len(r.Findings)+len(r.Preexisting), "failure"), r.FailuresPath)
}
