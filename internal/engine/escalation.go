package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// Report is the escalation's report: the decider's, or one of the reason,
// question and options alone when there is none; run names the run in the
// options' commands.
func Report(e state.Escalation, run string) decision.EscalationReport {
	if e.Report != nil {
		return *e.Report
	}
	rep := decision.EscalationReport{Run: run, Reason: e.Reason, Question: e.Question}
	for _, o := range e.Options {
		rep.Options = append(rep.Options, decision.Option{Label: o})
	}
	return rep
}

// NeedsYou is the escalation's record, for the run named run: its report's,
// naming the escalation's report in the run folder when runDir is given.
func NeedsYou(e state.Escalation, run, runDir string) state.NeedsYou {
	rec := Report(e, run).NeedsYou()
	rec.Run = run
	if runDir != "" {
		// The report written last: a segment that escalated again has more
		// than one.
		if rec.Report = state.LatestEscalation(runDir); rec.Report == "" {
			rec.Report, _ = state.EscalationFiles(runDir, e.Segment)
		}
	}
	return state.NeedsYou{NeedsYou: rec}
}

// WriteEscalation writes the escalation's report in the run folder, as
// escalation-NNN.md and escalation-NNN.yaml numbered by the segment that
// escalated (escalation-NNN-2.md for its second, none written over): the
// decider's report, or the reason, question and options alone when there is
// none. The same report written again (a step run twice) is left as it is.
func WriteEscalation(runDir string, e state.Escalation) error {
	rep := Report(e, "")
	rep.Segments = e.Segments
	b, err := rep.YAML()
	if err != nil {
		return fmt.Errorf("encode the escalation report: %w", err)
	}
	text := []byte(EscalationMarkdown(e))
	for k := 1; ; k++ {
		md, yml := state.EscalationFilesOf(runDir, e.Segment, k)
		if old, err := os.ReadFile(md); err == nil {
			if bytes.Equal(old, text) {
				return nil
			}
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read %s: %w", md, err)
		}
		if err := state.WriteFileOnce(md, text, state.FilePerm); err != nil {
			return err
		}
		return state.WriteFileOnce(yml, b, state.FilePerm)
	}
}

// EscalationMarkdown is the escalation report a person reads (escalation.md).
func EscalationMarkdown(e state.Escalation) string {
	if e.Report != nil {
		rep := *e.Report
		rep.Segments = e.Segments
		return rep.Markdown() + since(e)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Escalation\n\n**Reason:** %s\n\n", e.Reason)
	b.WriteString(decision.SegmentsMarkdown(e.Segments))
	if e.Question != "" {
		fmt.Fprintf(&b, "## Question\n\n%s\n\n", e.Question)
	}
	if len(e.Options) > 0 {
		b.WriteString("## Options\n\n")
		for i, o := range e.Options {
			fmt.Fprintf(&b, "%d. %s\n", i+1, o)
		}
	}
	return b.String() + since(e)
}

// since is the report's last line: the person's last part in the run before
// it escalated ("Escalated after the run was resumed at 12:50:18 UTC, its
// hand-off 5."); none when the run keeps no hand-offs.
func since(e state.Escalation) string {
	h := e.Since
	if h == nil {
		return ""
	}
	what := map[string]string{
		state.HandoffStart: "started", state.HandoffResume: "resumed", state.HandoffGuidance: "given guidance",
		state.HandoffGuide: "guided", state.HandoffAccept: "accepted", state.HandoffAbort: "aborted",
	}[h.Kind]
	if what == "" {
		what = h.Kind
	}
	return fmt.Sprintf("\n_Escalated after the run was %s at %s, its hand-off %d._\n", what, h.At.UTC().Format("2006-01-02 15:04:05 MST"), e.Handoffs)
}
