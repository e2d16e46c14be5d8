package decision

import (
	"fmt"
	"strings"
)

// EscalationReport is the document a human reads when the loop stops to ask:
// it renders as escalation.md ([EscalationReport.Markdown]) and
// escalation.yaml ([EscalationReport.YAML]).
type EscalationReport struct {
	// Run is the run's name, for the commands of the options; empty: the
	// options are shown without them.
	Run string `json:"run,omitempty" yaml:"run,omitempty"`
	// Flags end each option's command: what reaches the run where it runs
	// (a run on Temporal: --engine temporal and the server flags it was
	// started with); empty for a local run.
	Flags          string       `json:"flags,omitempty" yaml:"flags,omitempty"`
	Task           string       `json:"task" yaml:"task"`
	Reason         string       `json:"reason" yaml:"reason"`
	Class          string       `json:"class,omitempty" yaml:"class,omitempty"` // security, architecture, stuck, max_iterations, …
	History        []HistoryRow `json:"history" yaml:"history"`
	Feedback       string       `json:"consolidated_feedback,omitempty" yaml:"consolidated_feedback,omitempty"`
	Pattern        string       `json:"pattern_detected,omitempty" yaml:"pattern_detected,omitempty"`
	Disagreement   string       `json:"core_disagreement,omitempty" yaml:"core_disagreement,omitempty"`
	Question       string       `json:"question" yaml:"question"`
	Options        []Option     `json:"options" yaml:"options"`
	Recommendation string       `json:"recommendation" yaml:"recommendation"`
	Best           string       `json:"best_checkpoint,omitempty" yaml:"best_checkpoint,omitempty"`
	Triggers       []string     `json:"triggers,omitempty" yaml:"triggers,omitempty"`
	// Diff is a slot the environment fills when escalation_includes_diff is set.
	Diff string `json:"diff,omitempty" yaml:"diff,omitempty"`
	// Segments is the run's history by segment, this one last, when the run
	// has more than one: a slot the loop fills (see [SegmentSummary]).
	Segments []SegmentSummary `json:"segments,omitempty" yaml:"segments,omitempty"`
}

// SegmentSummary is one segment of a run as an escalation report recalls it:
// who opened it and how (the start, or guidance and its text), its agent
// attempts by their run-wide numbers, and how it ended.
type SegmentSummary struct {
	N        int    `json:"n" yaml:"n"`
	Opened   string `json:"opened" yaml:"opened"` // "started by dev@host at 2026-11-25 03:48 UTC"
	Guidance string `json:"guidance,omitempty" yaml:"guidance,omitempty"`
	// Attempts are the segment's agent attempts ("3–4", "5, cut short"; "none").
	Attempts string `json:"attempts" yaml:"attempts"`
	Ended    string `json:"ended,omitempty" yaml:"ended,omitempty"` // empty: this segment
}

// SegmentsMarkdown is the section of an escalation report that recalls the
// run's segments, this one last; empty for a run of one segment.
func SegmentsMarkdown(segs []SegmentSummary) string {
	if len(segs) < 2 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## The run so far\n\n")
	for i, g := range segs {
		this := ""
		if i == len(segs)-1 {
			this = " (this one)"
		}
		fmt.Fprintf(&b, "- **Segment %d%s**: %s; attempts %s", g.N, this, md(g.Opened), md(g.Attempts))
		if g.Ended != "" {
			fmt.Fprintf(&b, "; %s", md(g.Ended))
		}
		b.WriteString(".\n")
		if g.Guidance != "" {
			fmt.Fprintf(&b, "  > %s\n", strings.ReplaceAll(strings.TrimSpace(g.Guidance), "\n", "\n  > "))
		}
	}
	return b.String() + "\n"
}

// HistoryRow is one iteration in the report's table.
type HistoryRow struct {
	N        int     `json:"n" yaml:"n"`
	Did      string  `json:"agent_did" yaml:"agent_did"`
	Gates    string  `json:"gate_result" yaml:"gate_result"`
	Review   string  `json:"reviewer_feedback,omitempty" yaml:"reviewer_feedback,omitempty"`
	Decision string  `json:"decision" yaml:"decision"`
	Failing  int     `json:"failing" yaml:"failing"`
	Quality  float64 `json:"quality" yaml:"quality"`
	Cost     string  `json:"cost" yaml:"cost"`
}

// Option is one way forward with its trade-off.
type Option struct {
	Label    string `json:"label" yaml:"label"`
	TradeOff string `json:"trade_off" yaml:"trade_off"`
	// Resume is how to take the option: the flags of `agentloop resume NAME`
	// ("--accept", "--abort"); empty means resuming with your answer,
	// --guidance "...".
	Resume string `json:"resume,omitempty" yaml:"resume,omitempty"`
}

// Command is the command that takes the option for the run named run, reached
// with reach (see [EscalationReport.Flags]).
func (o Option) Command(run, reach string) string {
	flags := o.Resume
	if flags == "" {
		flags = `--guidance "..."`
	}
	if reach != "" {
		flags += " " + reach
	}
	return "agentloop resume " + run + " " + flags
}

// OptionLines numbers the options as one line each: "1) label — trade-off".
func OptionLines(os []Option) []string {
	out := make([]string, 0, len(os))
	for i, o := range os {
		out = append(out, fmt.Sprintf("%d) %s — %s", i+1, o.Label, o.TradeOff))
	}
	return out
}

// AttemptsSummary is one line per iteration of the report's history.
func (r EscalationReport) AttemptsSummary() []string {
	out := make([]string, 0, len(r.History))
	for _, h := range r.History {
		out = append(out, fmt.Sprintf("iteration %d: %s; tests %s; %s", h.N, h.Did, h.Gates, h.Decision))
	}
	return out
}

// YAML renders the report.
func (r EscalationReport) YAML() ([]byte, error) { return marshal(r) }

// Markdown renders the report for people.
func (r EscalationReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Escalation: %s\n\n", md(r.Task))
	fmt.Fprintf(&b, "**Why the loop stopped:** %s\n\n", md(r.Reason))
	b.WriteString(SegmentsMarkdown(r.Segments))
	if n := len(r.Segments); n > 1 {
		fmt.Fprintf(&b, "## Iteration history of segment %d\n\n", r.Segments[n-1].N)
	} else {
		b.WriteString("## Iteration history\n\n")
	}
	b.WriteString("| # | What the agent did | Gate result | Reviewer feedback | Decision | Failing | Quality | Cost |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, h := range r.History {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %d | %.2f | %s |\n",
			h.N, cell(h.Did), cell(h.Gates), cell(h.Review), cell(h.Decision), h.Failing, h.Quality, cell(h.Cost))
	}
	section := func(title, body string) {
		if strings.TrimSpace(body) != "" {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", title, strings.TrimSpace(body))
		}
	}
	if r.Pattern != r.Reason { // said once
		section("Pattern detected", r.Pattern)
	}
	section("Core disagreement", r.Disagreement)
	// The triggers, with their severities and figures, are for programs and
	// for digging: escalation.yaml has them.
	section("Consolidated feedback", fence(r.Feedback))
	section("Question", "**"+md(r.Question)+"**")
	var opts strings.Builder
	for i, o := range r.Options {
		fmt.Fprintf(&opts, "%d. **%s** — %s\n", i+1, md(o.Label), md(o.TradeOff))
		if r.Run != "" {
			fmt.Fprintf(&opts, "   `%s`\n", o.Command(r.Run, r.Flags))
		}
	}
	section("Options", opts.String())
	section("Recommendation", r.Recommendation)
	section("Best checkpoint", r.Best)
	if r.Diff != "" {
		section("Diff", "```diff\n"+strings.TrimRight(r.Diff, "\n")+"\n```")
	}
	return b.String()
}

func md(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(md(s), "|", `\|`)
}

func fence(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return "```text\n" + strings.ReplaceAll(strings.TrimRight(s, "\n"), "```", "ʼʼʼ") + "\n```"
}
