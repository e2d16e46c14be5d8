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
	exit := max(o.ExitCode, 0)
	res := Judge(Gate{Name: o.Name, Format: o.Format, Required: true}, exit, rep, nil)
	res.ExitCode = o.ExitCode
	res.LogPath = o.LogPath
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fmt.Errorf("feedback: write json: %w", err)
		}
		return nil
	}
	text := Render([]evidence.GateResult{res}, nil, RenderOptions{MaxLength: o.MaxLength})
	if text == "" {
		text = fmt.Sprintf("%s passed: %d passed, %d skipped (format %s)", o.Name, rep.Tests.Passed, rep.Tests.Skipped, rep.Format)
	}
	if _, err := fmt.Fprintln(w, text); err != nil {
		return fmt.Errorf("feedback: write: %w", err)
	}
	return nil
}
