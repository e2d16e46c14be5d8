package gate

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/evidence"
)

// FeedbackOptions configure [FeedbackCommand].
type FeedbackOptions struct {
	Format    string // parser name or "auto"
	JSON      bool   // print the judged result as JSON instead of the feedback text
	MaxLength int    // feedback budget in runes (default 500)
	ExitCode  int    // the gate's exit code; negative when unknown (judged from the report alone)
	Name      string // gate name (default "gate")
	WorkDir   string // absolute paths under it are made relative
	LogPath   string // shown in "(+K more; full log: …)"
}

// FeedbackCommand reads saved gate output from r, judges it and writes the
// synthesized feedback (or, with JSON, the judged [evidence.GateResult] with its
// findings and the detected format) to w. It backs `agentloop feedback`.
func FeedbackCommand(r io.Reader, w io.Writer, o FeedbackOptions) error {
	if o.Name == "" {
		o.Name = "gate"
	}
	rep, err := Parse(r, Options{Format: o.Format, WorkDir: o.WorkDir})
	if err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	res := Judge(Gate{Name: o.Name, Format: o.Format, Required: true}, judgedExit(o.ExitCode, rep), rep, nil)
	res.ExitCode = o.ExitCode
	res.LogPath = o.LogPath
	if res.Passed && !recognised(rep) && o.ExitCode < 0 {
		return fmt.Errorf("no test results found (format %s): pass --format with the gate's output format, or --exit-code with its exit status", rep.Format)
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fmt.Errorf("feedback: write json: %w", err)
		}
		return nil
	}
	text := Render([]evidence.GateResult{res}, nil, RenderOptions{MaxLength: o.MaxLength})
	switch {
	case text != "":
	case !recognised(rep):
		text = fmt.Sprintf("%s exited %d: no test results found (format %s)", o.Name, o.ExitCode, rep.Format)
	default:
		text = fmt.Sprintf("%s passed: %d passed, %d skipped (format %s)", o.Name, rep.Tests.Passed, rep.Tests.Skipped, rep.Format)
	}
	if _, err := fmt.Fprintln(w, text); err != nil {
		return fmt.Errorf("feedback: write: %w", err)
	}
	return nil
}

// judgedExit is the exit code a saved report is judged with. A known code is
// used as it is. Unknown, the report alone decides: its warnings and notes count
// when it has nothing worse (a scanner such as CodeQL reports every result as a
// warning or a note and exits 0, so they are what it found).
func judgedExit(exitCode int, rep Report) int {
	if exitCode >= 0 {
		return exitCode
	}
	for _, f := range rep.Findings {
		if !f.Flaky {
			return 1 // counted findings with a non-zero exit keep the warnings when nothing else fails
		}
	}
	return 0
}

// recognised reports whether a report found anything its format describes: a
// structured document, a counted test or a finding. Output without any (an empty
// file, random bytes) is no evidence that a gate passed.
func recognised(rep Report) bool {
	t := rep.Tests
	return rep.Parsed || t.Passed+t.Failed+t.Skipped > 0 || len(rep.Findings) > 0
}
