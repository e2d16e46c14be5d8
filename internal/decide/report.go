package decide

import (
	"fmt"
	"strings"
)

// EscalationReport is the document a human reads when the loop stops to ask
// (DESIGN §7): it renders as escalation.md ([EscalationReport.Markdown]) and
// marshals as escalation.yaml.
type EscalationReport struct {
	Task           string       `yaml:"task"`
	Reason         string       `yaml:"reason"`
	Class          string       `yaml:"class,omitempty"` // security, architecture, stuck, max_iterations, …
	History        []HistoryRow `yaml:"history"`
	Feedback       string       `yaml:"consolidated_feedback,omitempty"`
	Pattern        string       `yaml:"pattern_detected,omitempty"`
	Disagreement   string       `yaml:"core_disagreement,omitempty"`
	Question       string       `yaml:"question"`
	Options        []Option     `yaml:"options"`
	Recommendation string       `yaml:"recommendation"`
	Best           string       `yaml:"best_checkpoint,omitempty"`
	Triggers       []string     `yaml:"triggers,omitempty"`
	// Diff is a slot the environment fills when escalation_includes_diff is set.
	Diff string `yaml:"diff,omitempty"`
}

// WithDiff returns the report with the run's diff in its slot.
func (r EscalationReport) WithDiff(diff string) any {
	r.Diff = diff
	return r
}

// HistoryRow is one iteration in the report's table.
type HistoryRow struct {
	N        int     `yaml:"n"`
	Did      string  `yaml:"agent_did"`
	Gates    string  `yaml:"gate_result"`
	Review   string  `yaml:"reviewer_feedback,omitempty"`
	Decision string  `yaml:"decision"`
	Failing  int     `yaml:"failing"`
	Quality  float64 `yaml:"quality"`
	Cost     string  `yaml:"cost"`
}

// Option is one way forward with its trade-off.
type Option struct {
	Label    string `yaml:"label"`
	TradeOff string `yaml:"trade_off"`
}

func optionLines(os []Option) []string {
	out := make([]string, 0, len(os))
	for i, o := range os {
		out = append(out, fmt.Sprintf("%d) %s — %s", i+1, o.Label, o.TradeOff))
	}
	return out
}

// attemptsSummary is one line per iteration.
func (r EscalationReport) attemptsSummary() []string {
	out := make([]string, 0, len(r.History))
	for _, h := range r.History {
		out = append(out, fmt.Sprintf("iteration %d: %s; tests %s; %s", h.N, h.Did, h.Gates, h.Decision))
	}
	return out
}

// Markdown renders the report for people.
func (r EscalationReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Escalation: %s\n\n", md(r.Task))
	fmt.Fprintf(&b, "**Why the loop stopped:** %s\n\n", md(r.Reason))
	b.WriteString("## Iteration history\n\n")
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
	section("Pattern detected", r.Pattern)
	section("Core disagreement", r.Disagreement)
	if len(r.Triggers) > 0 {
		section("Triggers", "- "+strings.Join(r.Triggers, "\n- "))
	}
	section("Consolidated feedback", fence(r.Feedback))
	section("Question", "**"+md(r.Question)+"**")
	var opts strings.Builder
	for i, o := range r.Options {
		fmt.Fprintf(&opts, "%d. **%s** — %s\n", i+1, md(o.Label), md(o.TradeOff))
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
