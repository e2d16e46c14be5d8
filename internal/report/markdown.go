package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// Markdown writes the run report as Markdown: a summary, the budgets spent, the
// iteration table, the sessions, the task graph when there is one, and the
// escalation report when the run escalated.
func Markdown(w io.Writer, r Run) error {
	s := r.state()
	b := bufio.NewWriter(w)
	if len(r.Tasks) > 0 {
		graphMD(b, r)
		if err := b.Flush(); err != nil {
			return fmt.Errorf("write the Markdown report: %w", err)
		}
		return nil
	}
	h := historyOf(r)
	fmt.Fprintf(b, "# agentloop report: %s\n\n", mdCell(s.Name))
	summaryMD(b, s, h)
	budgetMD(b, s.Spend)
	baselineMD(b, s)
	outsideTaskMD(b, s)
	historyMD(b, s, h)
	sessionsMD(b, s.Sessions)
	guidanceMD(b, s.Handoffs)
	escalationsMD(b, r)
	if err := b.Flush(); err != nil {
		return fmt.Errorf("write the Markdown report: %w", err)
	}
	return nil
}

func summaryMD(b *bufio.Writer, s *state.State, h history) {
	status := "**" + cmp.Or(string(s.Status), dash) + "**"
	if s.Reason != "" {
		status += " — " + mdCell(s.Reason)
	}
	fmt.Fprintf(b, "| | |\n|---|---|\n")
	fmt.Fprintf(b, "| Status | %s |\n", status)
	fmt.Fprintf(b, "| Procedure | %s |\n", mdCell(s.Procedure))
	fmt.Fprintf(b, "| Run | `%s` |\n", mdCell(s.RunID))
	fmt.Fprintf(b, "| Attempts | %s |\n", h.attemptsText())
	fmt.Fprintf(b, "| Position | iteration %s |\n", statePosition(s))
	if s.FailureThreshold > 0 {
		fmt.Fprintf(b, "| Consecutive failures | %d/%d |\n", s.ConsecutiveFailures, s.FailureThreshold)
	}
	fmt.Fprintf(b, "| Started | %s |\n", stamp(s.StartedAt))
	fmt.Fprintf(b, "| Last iteration | %s |\n", stamp(s.LastIterationAt))
	fmt.Fprintf(b, "| Elapsed | %s |\n", duration(elapsed(s, reportNow(s))))
	if q, ok := bestQuality(s.History); ok {
		fmt.Fprintf(b, "| Best quality | %.2f |\n", q)
	}
	if s.Best != nil {
		fmt.Fprintf(b, "| Best checkpoint | %s (`%s`) |\n", mdCell(bestText(s)), mdCell(s.Best.Ref))
	}
	b.WriteString("\n")
}

func budgetMD(b *bufio.Writer, sp state.Spend) {
	b.WriteString("## Budget spent\n\n| | tokens | input | output | cache read | cache write | cost |\n|---|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, u evidence.Usage) {
		in, out, cr, cw := "unknown", "unknown", "unknown", "unknown"
		if u.TokensKnown {
			in, out, cr, cw = budget.Thousands(u.InputTokens), budget.Thousands(u.OutputTokens), budget.Thousands(u.CacheReadTokens), budget.Thousands(u.CacheWriteTokens)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", name, tokensText(u), in, out, cr, cw, costText(u))
	}
	row("agent", sp.Usage)
	if !sp.Reviewer.IsZero() { // a run without a reviewer has no reviewer row
		row("reviewer", sp.Reviewer)
	}
	row("**total**", sp.Total())
	fmt.Fprintf(b, "\nWall time %s", duration(sp.Wall.Duration()))
	if sp.Waited > 0 {
		fmt.Fprintf(b, ", of which %s waiting on rate limits", duration(sp.Waited.Duration()))
	}
	b.WriteString(".\n\n")
}

// historyMD is the run's history: each segment (titled when there are
// several) with its attempts in a table, broken by what is not an iteration:
// a hand-off in its place (a guidance quoted), an attempt cut short, the
// escalation that ended the segment.
func historyMD(b *bufio.Writer, s *state.State, h history) {
	b.WriteString("## History\n\n")
	if len(h.segments) == 0 {
		b.WriteString("No iteration has finished yet.\n\n")
		return
	}
	table := false
	line := func(text string) {
		if table {
			b.WriteString("\n")
			table = false
		}
		b.WriteString(text + "\n\n")
	}
	for _, g := range h.segments {
		if h.many() {
			line("### " + segmentTitle(g))
		}
		if g.Opened != nil {
			line(mdHandoff(g.Opened))
		}
		escalated := false
		for _, m := range g.Moments {
			switch {
			case m.Handoff != nil:
				line(mdHandoff(m.Handoff))
			case m.Cut != nil:
				line(cutText(m, mdMarks))
			default:
				if !table {
					b.WriteString("| attempt | iteration | duration | agent exit | gates | failing | quality | decision | strategy | triggers | cost |\n")
					b.WriteString("|---:|---:|---:|---:|---|---:|---:|---|---|---|---:|\n")
					table = true
				}
				recordMD(b, m)
				if escalatedAt(m) {
					escalated = true
					line(h.escalatedText(g.N, mdMarks))
				}
			}
		}
		if _, ok := h.escalations[g.N]; ok && !escalated {
			line(h.escalatedText(g.N, mdMarks))
		}
	}
	if table {
		b.WriteString("\n")
	}
	var notes []string
	for _, r := range s.History {
		if r.Summary != "" {
			notes = append(notes, fmt.Sprintf("- attempt %d: %s", seqOf(r), mdCell(r.Summary)))
		}
	}
	if len(notes) > 0 {
		b.WriteString("What each attempt did:\n\n" + strings.Join(notes, "\n") + "\n\n")
	}
	if out := outputProblems(s.History); len(out) > 0 {
		b.WriteString("Gate output that could not be read (the gates were judged without it):\n\n- " + strings.Join(out, "\n- ") + "\n\n")
	}
}

func recordMD(b *bufio.Writer, m state.Moment) {
	r := m.Record
	exit := fmt.Sprint(r.AgentExit)
	if r.AgentReason != "" {
		exit += " (" + r.AgentReason + ")"
	}
	fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %d | %.2f | %s | %s | %s | %s |\n",
		m.Seq, r.N, duration(r.Duration.Duration()), mdCell(exit), mdCell(gatesText(r.Gates)), len(r.Failing),
		r.Quality, cmp.Or(r.Decision, dash), cmp.Or(r.Strategy, dash), mdCell(cmp.Or(strings.Join(r.Triggers, ", "), dash)), costText(r.Usage))
}

// mdHandoff is a hand-off as a Markdown paragraph, a guidance's text quoted.
func mdHandoff(h *state.Handoff) string {
	s := "**" + handoffText(h, mdMarks) + "**"
	if h.Kind == state.HandoffGuidance && h.Text != "" {
		s += "\n\n> " + strings.Join(strings.Split(strings.ReplaceAll(strings.TrimSpace(h.Text), "\r", ""), "\n"), "\n> ")
	}
	return s
}

// mdCode marks text as code: `text`.
func mdCode(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

// seqOf is a record's run-wide attempt number (its iteration number in the
// records of older builds, which did not keep one).
func seqOf(r state.Record) int {
	if r.Seq > 0 {
		return r.Seq
	}
	return r.N
}

// outputProblems lists what of each gate's output could not be read, once per
// gate and problem, with the attempts it happened in: "tests, attempts 1–3: …".
func outputProblems(h []state.Record) []string {
	type key struct{ gate, problem string }
	var order []key
	seen := map[key][]int{}
	for _, r := range h {
		for _, g := range r.Gates {
			if g.OutputProblems == "" {
				continue
			}
			k := key{g.Name, g.OutputProblems}
			if _, ok := seen[k]; !ok {
				order = append(order, k)
			}
			seen[k] = append(seen[k], seqOf(r))
		}
	}
	out := make([]string, len(order))
	for i, k := range order {
		ns := seen[k]
		when := fmt.Sprintf("attempt %d", ns[0])
		if len(ns) > 1 {
			when = fmt.Sprintf("attempts %d–%d (%d times)", ns[0], ns[len(ns)-1], len(ns))
		}
		out[i] = fmt.Sprintf("%s, %s: %s", mdCell(k.gate), when, mdCell(k.problem))
	}
	return out
}

// gatesText renders gates as "tests ✗, lint ✓, e2e ⚠".
func gatesText(gs []state.GateSummary) string {
	if len(gs) == 0 {
		return "—"
	}
	parts := make([]string, len(gs))
	for i, g := range gs {
		mark := map[string]string{"pass": "✓", "fail": "✗", "infra": "⚠"}[gateMark(g)]
		parts[i] = g.Name + " " + mark
	}
	return strings.Join(parts, ", ")
}

func sessionsMD(b *bufio.Writer, ss []state.Session) {
	if len(ss) == 0 {
		return
	}
	b.WriteString("## Sessions\n\n| # | started | ended | iterations | status | reason |\n|---:|---|---|---:|---|---|\n")
	for i, s := range ss {
		fmt.Fprintf(b, "| %d | %s | %s | %d | %s | %s |\n", i+1, stamp(s.StartedAt), stamp(s.EndedAt), s.Iterations,
			cmp.Or(string(s.Status), dash), mdCell(cmp.Or(s.Reason, dash)))
	}
	b.WriteString("\n")
}

// guidanceMD lists what people told the loop: answers to its escalations
// (a new segment each) and guidance given while it ran, with the iteration
// that first carried it.
func guidanceMD(b *bufio.Writer, hs []state.Handoff) {
	head := false
	for _, h := range hs {
		if h.Kind != state.HandoffGuidance && h.Kind != state.HandoffGuide {
			continue
		}
		if !head {
			b.WriteString("## Guidance\n\n| when | by | given | applied | guidance |\n|---|---|---|---|---|\n")
			head = true
		}
		given, applied := "answer to an escalation", fmt.Sprintf("segment %d, iteration 1", h.Segment)
		if h.Kind == state.HandoffGuide {
			given, applied = "while it ran", fmt.Sprintf("segment %d, iteration %d", h.Segment, h.Iteration)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", stamp(h.At), mdCell(cmp.Or(h.By, dash)), given, applied, mdCell(h.Text))
	}
	if head {
		b.WriteString("\n")
	}
}

// graphMD is a task graph's report: its summary, a row per task, and for
// each task that ran, the command that writes its own report.
func graphMD(b *bufio.Writer, r Run) {
	s := r.state()
	f := graphFactsOf(r.Tasks)
	fmt.Fprintf(b, "# agentloop report: task graph %s\n\n", mdCell(s.Name))
	fmt.Fprintf(b, "| | |\n|---|---|\n")
	fmt.Fprintf(b, "| Status | **%s** |\n", cmp.Or(string(s.Status), dash))
	fmt.Fprintf(b, "| Task file | %s |\n", mdCell(strings.TrimPrefix(s.Procedure, "task graph ")))
	fmt.Fprintf(b, "| Tasks | %d: %s |\n", len(r.Tasks), f.states)
	fmt.Fprintf(b, "| Iterations | %d, every task's together |\n", s.TotalIterations)
	fmt.Fprintf(b, "| Task time | %s, each task's elapsed time added up |\n", duration(f.span))
	fmt.Fprintf(b, "| Cost | %s |\n\n", costText(f.total))
	b.WriteString("## Tasks\n\n| task | title | state | iterations | duration | cost | outcome | depends on | report |\n|---|---|---|---:|---:|---:|---|---|---|\n")
	for i, t := range r.Tasks {
		rep := "—"
		if t.Run != nil && t.Run.State != nil {
			rep = "`agentloop report " + mdCell(t.Run.State.Name) + "`"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %s | %s | %s | %s |\n", mdCell(t.ID), mdCell(t.Title), t.State, t.Iterations,
			f.durations[i], f.costs[i], mdCell(cmp.Or(t.Reason, dash)), mdCell(cmp.Or(strings.Join(t.DependsOn, ", "), dash)), rep)
	}
	b.WriteString("\n")
}

// escalationsMD lists every escalation report of the run and shows the last.
func escalationsMD(b *bufio.Writer, r Run) {
	if len(r.Escalations) > 1 {
		b.WriteString("## Escalations\n\n")
		for _, e := range r.Escalations {
			fmt.Fprintf(b, "- segment %d: %s\n", max(e.Segment, 1), mdCode(filepath.ToSlash(e.Path)))
		}
		b.WriteString("\n")
	}
	esc := strings.TrimSpace(r.Escalation)
	if esc == "" {
		return
	}
	title := "## Escalation report"
	if n := len(r.Escalations); n > 1 {
		title += fmt.Sprintf(" (the last: segment %d)", r.Escalations[n-1].Segment)
	}
	b.WriteString(title + "\n\n")
	b.WriteString(demote(esc))
	b.WriteString("\n")
}

// mdCell makes text safe inside a Markdown table cell: one line, pipes escaped.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// dash stands for a value that is not there.
const dash = "—"

// demote pushes the headings of an embedded Markdown document two levels down, so
// that its "# Escalation" sits under the report's "## Escalation report".
func demote(md string) string {
	lines := strings.Split(md, "\n")
	fence := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(l, "#") {
			lines[i] = "##" + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
