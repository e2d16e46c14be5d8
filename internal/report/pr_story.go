package report

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// acceptedAt is the index of the recorded attempt whose checkpoint a person
// accepted to end the run (resume --accept keeps the best one), -1 when no
// one did or the records do not tell which.
func acceptedAt(s *state.State) int {
	n := len(s.Handoffs)
	if n == 0 || s.Handoffs[n-1].Kind != state.HandoffAccept {
		return -1
	}
	c := s.Handoffs[n-1].Checkpoint
	for i, r := range s.History {
		if c != "" && r.Checkpoint == c {
			return i
		}
	}
	for i, r := range s.History {
		if s.Best != nil && s.Best.Seq > 0 && seqOf(r) == s.Best.Seq {
			return i
		}
	}
	return -1
}

// maxQuoted bounds one quoted text (an agent's answer, the reviewer's
// reasons, a guidance): the full report has it whole.
const maxQuoted = 4000

// iterationsMD is the iterations in a compact table, folded away when long.
func (f prFacts) iterationsMD() string {
	if len(f.s.History) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| attempt | iteration | decision | gates | failing | cost |\n|---:|---:|---|---|---:|---:|\n")
	for _, m := range f.h.timeline {
		if m.Record == nil {
			continue
		}
		r := m.Record
		it := fmt.Sprint(r.N)
		if f.h.many() {
			it += fmt.Sprintf(" (segment %d)", m.Segment)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %d | %s |\n", m.Seq, it, cmp.Or(r.Decision, dash), mdCell(gatesText(r.Gates)),
			len(r.Failing), costText(r.Usage.Add(r.ReviewUsage)))
	}
	table := b.String()
	var out strings.Builder
	out.WriteString("### Iterations\n\n")
	if f.h.cut > 0 {
		if f.h.cut == 1 {
			out.WriteString("1 attempt cut short (a Ctrl-C, a crash) is not in the table; its spend is in the totals.\n\n")
		} else {
			fmt.Fprintf(&out, "%d attempts cut short (a Ctrl-C, a crash) are not in the table; their spend is in the totals.\n\n", f.h.cut)
		}
	}
	if n := len(f.s.History); n > foldRows {
		fmt.Fprintf(&out, "<details><summary>%d iterations: the decision on each</summary>\n\n%s\n</details>\n\n", n, table)
	} else {
		out.WriteString(table + "\n")
	}
	return out.String()
}

// foldRows is how many iterations the table shows before it is folded away.
const foldRows = 10

// spendMD is the tokens and cost of the agent and the reviewer, and where
// each figure came from.
func (f prFacts) spendMD() string {
	sp := f.s.Spend
	var b strings.Builder
	b.WriteString("### Tokens and cost\n\n| | tokens | cost | where the figures came from |\n|---|---:|---:|---|\n")
	agent := func(r state.Record) evidence.Usage { return r.Usage }
	reviewer := func(r state.Record) evidence.Usage { return r.ReviewUsage }
	fmt.Fprintf(&b, "| agent | %s | %s | %s |\n", tokensText(sp.Usage), costText(sp.Usage), f.source(sp.Usage, "agent", agent))
	if !sp.Reviewer.IsZero() {
		fmt.Fprintf(&b, "| reviewer | %s | %s | %s |\n", tokensText(sp.Reviewer), costText(sp.Reviewer), f.source(sp.Reviewer, "reviewer", reviewer))
	}
	t := sp.Total()
	fmt.Fprintf(&b, "| **total** | %s | %s | the sum, over every session and every attempt cut short |\n", tokensText(t), costText(t))
	fmt.Fprintf(&b, "\nWall time %s", duration(sp.Wall.Duration()))
	if sp.Waited > 0 {
		fmt.Fprintf(&b, ", of which %s waiting on rate limits", duration(sp.Waited.Duration()))
	}
	b.WriteString(". A cost marked ~ is an estimate.\n\n")
	return b.String()
}

// source says where a usage's figures came from: the CLI's own report of
// its tokens and cost, or agentloop's price table applied to the tokens
// (the attempts whose cost was estimated counted from the records).
func (f prFacts) source(u evidence.Usage, who string, of func(state.Record) evidence.Usage) string {
	var parts []string
	cli := who + "'s CLI"
	switch {
	case !u.TokensKnown:
		parts = append(parts, "tokens not reported by the "+cli)
	default:
		s := "tokens as the " + cli + " reported them"
		if u.Model != "" {
			s += " (" + mdCode(u.Model) + ")"
		}
		parts = append(parts, s)
	}
	switch {
	case !u.CostKnown:
		parts = append(parts, "cost not reported, and without every token count not estimated")
	case u.CostEstimated:
		estimated, all := 0, 0
		for _, r := range f.s.History {
			if x := of(r); !x.IsZero() {
				all++
				if x.CostEstimated {
					estimated++
				}
			}
		}
		s := "cost estimated from the token counts with agentloop's price table"
		if estimated > 0 && estimated < all {
			s += fmt.Sprintf(" for %d of %d attempts, as the CLI reported it for the others", estimated, all)
		}
		parts = append(parts, s)
	default:
		parts = append(parts, "cost as the "+cli+" reported it")
	}
	return strings.Join(parts, "; ")
}

// guidanceMD is the escalations of the run and what people told it, the
// guidance quoted as their words.
func (f prFacts) guidanceMD() string {
	var b strings.Builder
	for _, m := range f.h.timeline {
		switch {
		case escalatedAt(m):
			why := m.Record.Summary
			if m.Record == f.last && f.s.Status == state.StatusEscalated {
				why = cmp.Or(why, f.s.Reason)
			}
			fmt.Fprintf(&b, "- After attempt %d, agentloop escalated: %s\n", m.Seq, mdText(cmp.Or(why, "no reason recorded")))
		case m.Handoff != nil:
			h := m.Handoff
			switch h.Kind {
			case state.HandoffGuidance, state.HandoffGuide:
				how := "answered"
				if h.Kind == state.HandoffGuide {
					how = "guided the running loop"
				}
				by := "A person"
				if h.By != "" {
					by = mdCode(h.By)
				}
				fmt.Fprintf(&b, "- %s %s, in their words:\n\n%s\n", by, how+who(&state.Handoff{At: h.At}, false), indent(fence(h.Text, maxQuoted)))
			case state.HandoffAccept, state.HandoffAbort:
				b.WriteString("- " + handoffText(h, mdMarks) + "\n")
			}
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "### Escalations and guidance\n\n" + b.String() + "\n"
}

// answerMD is the agent's own final answer on the last attempt, labelled
// as its claim.
func (f prFacts) answerMD() string {
	a := strings.TrimSpace(f.attempt(f.last).Answer)
	if a == "" {
		return ""
	}
	return "### The agent's own summary\n\nIts claim, in its words, on the last attempt: agentloop did not check it (the sections above are what it checked).\n\n" +
		fence(a, maxQuoted) + "\n"
}

// closingMD is the issue the pull request closes and where the full report
// is.
func (f prFacts) closingMD(o PROptions) string {
	var b strings.Builder
	b.WriteString("---\n\n")
	if o.Closes > 0 {
		fmt.Fprintf(&b, "Closes #%d\n\n", o.Closes)
	}
	fmt.Fprintf(&b, "Written by agentloop from its records of run %s; %s.\n", mdCode(cmp.Or(f.s.RunID, dash)), f.reportRef(o))
	return b.String()
}

// reportRef is where the full report is: its link, or the command that
// writes it, as words: "the full report, `agentloop report …`".
func (f prFacts) reportRef(o PROptions) string {
	if o.ReportURL != "" {
		return "[the full report](" + strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(o.ReportURL) + ")"
	}
	cmd := strings.TrimSpace("agentloop report " + f.s.Name)
	if f.s.RunID != "" {
		cmd += " --run " + f.s.RunID
	}
	if o.ReportFlags != "" {
		cmd += " " + o.ReportFlags
	}
	return "the full report, " + mdCode(cmd)
}

// fence quotes text in a fenced code block longer than any backtick run in
// it, at most limit bytes of it (cut at a line, with a note).
func fence(text string, limit int) string {
	text = strings.TrimRight(strings.ReplaceAll(text, "\r", ""), "\n")
	if len(text) > limit {
		cut := limit
		for cut > 0 && text[cut] != '\n' && text[cut] != ' ' {
			cut--
		}
		text = text[:cut] + fmt.Sprintf("\n[… %s more characters: the full report has them]", budget.Thousands(int64(len(text)-cut)))
	}
	n, run := 3, 0
	for _, c := range text {
		if c != '`' {
			run = 0
			continue
		}
		run++
		n = max(n, run+1)
	}
	f := strings.Repeat("`", n)
	return f + "text\n" + text + "\n" + f + "\n"
}

// indent indents a block by two spaces, to sit in a list item.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// mdText makes agentloop's one-line text safe as Markdown outside a table:
// one line, no markup taken from it (a test's name with < or * in it).
func mdText(s string) string {
	s = strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "<", "&lt;", ">", "&gt;", "[", "\\[", "]", "\\]", "`", "\\`", "~", "\\~").Replace(s)
	return mdCell(s)
}

// plural is "1 failure", "3 failures".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
