package report

import (
	"cmp"
	"fmt"
	"html/template"
	"strings"

	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/state"
)

// historyCols is the number of columns of the history table.
const historyCols = 10

// historyHTML is the history table of a run's page: a row per recorded
// iteration (its attempt's run-wide number, its iteration in the segment
// under it), and, across the table in their place, where each segment starts
// (the start, or the guidance quoted), the other hand-offs, the attempts cut
// short and the escalations. Past maxIterationRows attempts it shows the last
// ones, and where each segment started; shown counts the attempts it shows.
// It is written here rather than by the template, which is slower by far.
func historyHTML(s *state.State, h history) (_ template.HTML, shown int) {
	if len(h.segments) == 0 {
		return `<p class="sub">No iteration has finished yet.</p>`, 0
	}
	// from is the run-wide number of the first attempt shown; what comes
	// before it is left out, but for the segments' starts.
	from, n := 0, 0
	for i := len(h.timeline) - 1; i >= 0 && n < maxIterationRows; i-- {
		if m := h.timeline[i]; m.Handoff == nil {
			from, n = m.Seq, n+1
		}
	}
	var b strings.Builder
	b.Grow(n * 900)
	b.WriteString(`<table class="iterations stack">` + "\n" +
		`<tr><th class="num">attempt</th><th class="num">duration</th><th class="num">agent exit</th><th>gates</th><th class="num">failing</th>` +
		`<th class="num" title="` + esc(decide.QualityMeaning) + `">quality</th><th>review</th><th>decision</th><th>triggers</th><th class="num">cost</th></tr>` + "\n")
	across := func(class, attrs, html string) {
		fmt.Fprintf(&b, `<tr class="%s"%s><td colspan="%d">%s</td></tr>`+"\n", class, attrs, historyCols, html)
	}
	for _, g := range h.segments {
		var head []string
		if h.many() {
			head = append(head, "<strong>"+esc(segmentTitle(g))+"</strong>")
		}
		if g.Opened != nil {
			head = append(head, handoffHTML(g.Opened))
		}
		if len(head) > 0 {
			across("segment", fmt.Sprintf(` data-segment="%d"`, g.N), strings.Join(head, " · "))
		}
		escalated := false
		for _, m := range g.Moments {
			if m.Handoff == nil && m.Seq < from || m.Handoff != nil && m.Seq < from-1 {
				continue // before the attempts shown
			}
			switch {
			case m.Handoff != nil:
				across("handoff", fmt.Sprintf(` data-handoff="%s"`, esc(m.Handoff.Kind)), handoffHTML(m.Handoff))
			case m.Cut != nil:
				across("cut", fmt.Sprintf(` data-attempt="%d"`, m.Seq), cutText(m, htmlMarks))
			default:
				recordHTML(&b, m, h.many())
				if escalatedAt(m) {
					escalated = true
					across("escalated", "", h.escalatedText(g.N, htmlMarks))
				}
			}
		}
		if _, ok := h.escalations[g.N]; ok && !escalated {
			across("escalated", "", h.escalatedText(g.N, htmlMarks))
		}
	}
	b.WriteString("</table>\n")
	return template.HTML(b.String()), n //nolint:gosec // every text above is escaped
}

// handoffHTML is a hand-off, a guidance's text quoted.
func handoffHTML(h *state.Handoff) string {
	s := handoffText(h, htmlMarks)
	if h.Kind == state.HandoffGuidance && h.Text != "" {
		s += "<blockquote>" + strings.ReplaceAll(esc(strings.TrimSpace(h.Text)), "\n", "<br>") + "</blockquote>"
	}
	return s
}

func recordHTML(b *strings.Builder, m state.Moment, many bool) {
	r := m.Record
	it := fmt.Sprintf("iteration %d", r.N)
	if many {
		it += fmt.Sprintf(" of segment %d", m.Segment)
	}
	fmt.Fprintf(b, `<tr data-attempt="%d" data-segment="%d">`, m.Seq, m.Segment)
	fmt.Fprintf(b, `<td class="num" data-label="attempt">%d<div class="did">%s</div></td>`, m.Seq, it)
	fmt.Fprintf(b, `<td class="num" data-label="duration">%s</td>`, duration(r.Duration.Duration()))
	fmt.Fprintf(b, `<td class="num" data-label="agent exit">%d`, r.AgentExit)
	if r.AgentReason != "" {
		fmt.Fprintf(b, `<div class="did">%s</div>`, esc(r.AgentReason))
	}
	fmt.Fprintf(b, `</td><td data-label="gates">%s</td><td class="num" data-label="failing">%d</td><td class="num" data-label="quality">%.2f</td>`,
		esc(gatesText(r.Gates)), len(r.Failing), r.Quality)
	b.WriteString(`<td data-label="review">`)
	if r.Review != "" {
		fmt.Fprintf(b, `<span class="badge %s">%s</span>`, statusClass(r.Review), esc(verdictText(r.Review)))
	} else {
		b.WriteString("—")
	}
	fmt.Fprintf(b, `</td><td data-label="decision"><span class="badge %s">%s</span>`, statusClass(r.Decision), esc(cmp.Or(r.Decision, dash)))
	if r.Strategy != "" && r.Strategy != r.Decision {
		fmt.Fprintf(b, ` <span class="did">%s</span>`, esc(r.Strategy))
	}
	if r.Summary != "" {
		fmt.Fprintf(b, `<div class="did">%s</div>`, esc(r.Summary))
	}
	b.WriteString(`</td><td data-label="triggers">`)
	for _, t := range r.Triggers {
		fmt.Fprintf(b, `<span class="chip">%s</span>`, esc(t))
	}
	if len(r.Triggers) == 0 {
		b.WriteString("—")
	}
	fmt.Fprintf(b, `</td><td class="num" data-label="cost">%s</td></tr>`+"\n", esc(costText(r.Usage)))
}
