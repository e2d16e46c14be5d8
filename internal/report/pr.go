package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/state"
)

// The body of a pull request is a receipt: written by agentloop from its own
// records of the run — the gates it ran before and after, its tamper check,
// the reviewer's verdict, the decisions, the spend and where each figure came
// from, the people's guidance — and nothing in it is an agent's claim unless
// it is labelled so. Words not agentloop's own (the reviewer's reasons, a
// person's guidance, the agent's final answer) are quoted in code blocks,
// where GitHub neither renders their markup nor acts on the mentions and
// issue references in them ("fixes #3" in an agent's answer closes nothing).

// PRBodyMax is the default cap of a pull request's body: GitHub takes at most
// 65,536 characters; the rest is room to spare.
const PRBodyMax = 60_000

// PROptions are what a pull request's body says beyond the run's records.
type PROptions struct {
	// Closes is the issue the pull request closes ("Closes #N"); 0 for none.
	Closes int
	// ReportURL is where the full report is; "" names the command that
	// writes it.
	ReportURL string
	// MaxLength caps the body, in bytes (no more characters than that);
	// 0 is [PRBodyMax]. The longest sections are cut first, each with a
	// line that says so; the verdict and the gates table never are.
	MaxLength int
	// Redactor redacts the body once more before it leaves the machine (the
	// records are redacted already as they are written); nil redacts the
	// credential shapes alone.
	Redactor *redact.Redactor
}

// PR writes the pull request body of a run ([PRBody]): `agentloop report
// --format pr`.
func PR(w io.Writer, r Run, o PROptions) error {
	if _, err := io.WriteString(w, PRBody(r, o)); err != nil {
		return fmt.Errorf("write the pull request body: %w", err)
	}
	return nil
}

// PRBody is the body of the pull request that carries a run's work, as
// GitHub-flavoured Markdown: the verdict, the gates before and after, the
// tamper check, the reviewer's verdict, the iterations, the spend, the
// escalations and guidance, the agent's own summary (labelled its claim), the
// issue it closes and where the full report is. See [PROptions].
func PRBody(r Run, o PROptions) string {
	f := prFactsOf(r)
	red := o.Redactor
	if red == nil {
		red = redact.New()
	}
	secs := []prSection{
		{name: "verdict", text: f.verdictMD(), keep: true},
		{name: "gates", text: f.gatesMD(), keep: true},
		{name: "fixed and left failures", text: f.failuresMD()},
		{name: "tamper check", text: f.tamperMD()},
		{name: "reviewer", text: f.reviewerMD()},
		{name: "iterations", text: f.iterationsMD()},
		{name: "tokens and cost", text: f.spendMD()},
		{name: "escalations and guidance", text: f.guidanceMD()},
		{name: "agent's own summary", text: f.answerMD()},
		{name: "closing", text: f.closingMD(o), keep: true},
	}
	for i := range secs {
		secs[i].text = red.String(secs[i].text)
	}
	return capSections(secs, cmp.Or(o.MaxLength, PRBodyMax), f.reportRef(o))
}

// prSection is one part of the body: keep marks the parts never cut.
type prSection struct {
	name, text string
	keep, cut  bool
}

// capSections joins the sections, cutting the longest ones the cap allows
// to be cut until the body fits, each replaced by a line that says what was
// cut and where the full report is. A body still too long (a gates table
// longer than the cap) is cut at a line before its last section (the issue
// it closes), with the same note.
func capSections(secs []prSection, limit int, where string) string {
	total := func() int {
		n := 0
		for _, s := range secs {
			n += len(s.text)
		}
		return n
	}
	for total() > limit {
		longest := -1
		for i, s := range secs {
			if !s.keep && !s.cut && (longest < 0 || len(s.text) > len(secs[longest].text)) {
				longest = i
			}
		}
		if longest < 0 {
			break
		}
		s := &secs[longest]
		head := ""
		if strings.HasPrefix(s.text, "### ") {
			head, _, _ = strings.Cut(s.text, "\n")
			head += "\n\n"
		}
		s.cut = true
		s.text = head + fmt.Sprintf("%s The %s section (%s characters) was cut to keep this body under GitHub's limit; the run's records hold it: %s, and the run's folder._\n\n",
			cutMark, s.name, budget.Thousands(int64(len(s.text))), where)
	}
	var b strings.Builder
	for _, s := range secs[:len(secs)-1] {
		b.WriteString(s.text)
	}
	out, tail := b.String(), secs[len(secs)-1].text
	if len(out)+len(tail) <= limit {
		return out + tail
	}
	note := fmt.Sprintf("\n\n%s The rest of this body was cut to keep it under GitHub's limit; the run's records hold it: %s, and the run's folder._\n\n", cutMark, where)
	cut := max(limit-len(note)-len(tail), 0)
	for cut > 0 && out[cut] != '\n' { // at a line: never inside a character
		cut--
	}
	return out[:cut] + note + tail
}

// cutMark starts the line that stands for a cut section.
const cutMark = "_✂️"

// prFacts are the run's facts the body is written from, each computed once.
type prFacts struct {
	r Run
	s *state.State
	h history
	// last is the attempt whose tree the run ended with: the last one
	// recorded, or the one a person accepted; nil before the first.
	last     *state.Record
	accepted bool                // last is the attempt a person accepted, not the last one
	reviewed *state.Record       // the last attempt up to last that the reviewer judged
	flagged  []*state.Record     // the attempts up to last the tamper check flagged
	before   map[string][]string // a gate's failure keys at the baseline
	outside  map[string]bool     // the failures the decider found outside the task
}

func prFactsOf(r Run) prFacts {
	s := r.state()
	f := prFacts{r: r, s: s, h: historyOf(r), before: map[string][]string{}, outside: map[string]bool{}}
	end := len(s.History)
	if i := acceptedAt(s); i >= 0 {
		end, f.accepted = i+1, i+1 < len(s.History)
	}
	for i := range s.History[:end] {
		rec := &s.History[i]
		f.last = rec
		if rec.Review != "" {
			f.reviewed = rec
		}
		if slices.Contains(rec.Triggers, decision.TriggerTestTampering) {
			f.flagged = append(f.flagged, rec)
		}
	}
	for _, g := range s.Baseline {
		for _, fs := range [][]evidence.Finding{g.Findings, g.Preexisting} {
			for _, x := range fs {
				if x.Key != "" && !slices.Contains(f.before[g.Name], x.Key) {
					f.before[g.Name] = append(f.before[g.Name], x.Key)
				}
			}
		}
	}
	if f.last != nil {
		for _, k := range f.last.OutsideTask {
			f.outside[k] = true
		}
	}
	return f
}

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

// attempt is what the run folder keeps of a recorded attempt beyond its
// record; the zero Attempt when the report has none of it.
func (f prFacts) attempt(r *state.Record) Attempt {
	if r == nil {
		return Attempt{}
	}
	return f.r.Attempts[seqOf(*r)]
}

// onlyOutside reports whether every failure of a failing gate is one the
// decider found outside the task.
func (f prFacts) onlyOutside(g state.GateSummary) bool {
	if g.Infra || len(g.Keys) == 0 {
		return false
	}
	for _, k := range g.Keys {
		if !f.outside[k] {
			return false
		}
	}
	return true
}

// verdictMD is the first line: how the run ended, in agentloop's words, with
// its iterations and cost.
func (f prFacts) verdictMD() string {
	s := f.s
	var mark, what string
	switch s.Status {
	case state.StatusSucceeded:
		mark = "✅"
		parts := []string{"gates pass"}
		if f.last == nil || len(f.last.Gates) == 0 {
			parts[0] = "no gates ran"
		} else if n := len(f.outside); n > 0 {
			parts[0] = fmt.Sprintf("gates pass but for %s there before the run", plural(n, "failure"))
		}
		parts = append(parts, f.reviewWords(), f.tamperWords())
		what = strings.Join(parts, ", ")
	case state.StatusCompleted:
		mark, what = "☑️", "completed"
	case state.StatusEscalated:
		mark, what = "🙋", "escalated, waiting for a person"
	case state.StatusAborted:
		mark, what = "❌", "aborted"
	case state.StatusInterrupted:
		mark, what = "⏸️", "interrupted"
	case state.StatusRunning:
		mark, what = "⏳", "still running"
	default:
		mark, what = "❔", "no outcome recorded"
	}
	cost := costText(s.Spend.Total())
	if cost == "unknown" {
		cost = "cost unknown"
	}
	line := fmt.Sprintf("%s **agentloop: %s** — %s, %s", mark, what, f.iterationsWord(), cost)
	if s.Status != state.StatusSucceeded && s.Reason != "" {
		line += "\n\n" + mdText(s.Reason)
	}
	return line + "\n\n"
}

// iterationsWord counts the run's iterations: "3 iterations", "7 attempts
// in 3 segments".
func (f prFacts) iterationsWord() string {
	if f.h.many() || f.h.cut > 0 {
		s := plural(f.h.attempts, "attempt")
		if f.h.many() {
			s += fmt.Sprintf(" in %d segments", len(f.h.segments))
		}
		return s
	}
	return plural(f.h.recorded, "iteration")
}

// reviewWords is the reviewer's part of the verdict.
func (f prFacts) reviewWords() string {
	switch {
	case f.reviewed == nil:
		return "no reviewer"
	case f.reviewed.Review == evidence.VerdictApprove:
		return "reviewer approved"
	case f.reviewed.Review == evidence.VerdictRequestChanges:
		return "reviewer asked for changes"
	}
	return "reviewer: " + f.reviewed.Review
}

// tamperWords is the tamper check's part of the verdict.
func (f prFacts) tamperWords() string {
	switch {
	case !f.diffed():
		return "no diff to check for tampering"
	case len(f.flagged) == 0:
		return "no tampering found"
	case f.weakens(f.last):
		return "tests weakened (see the tamper check)"
	}
	return "test files edited (see the tamper check)"
}

// diffed reports whether agentloop had the diffs of the run's attempts: it
// checkpoints them in git.
func (f prFacts) diffed() bool {
	for _, r := range f.s.History {
		if r.Checkpoint != "" || r.DiffHash != "" {
			return true
		}
	}
	return false
}

// tamperTrigger is the test-tampering trigger of an attempt's decision, as
// its folder keeps it; ok false when the report does not have it.
func (f prFacts) tamperTrigger(r *state.Record) (decision.Trigger, bool) {
	for _, t := range f.attempt(r).Triggers {
		if t.ID == decision.TriggerTestTampering {
			return t, true
		}
	}
	return decision.Trigger{}, false
}

// weakens reports whether an attempt's tamper check found the tests
// weakened (deleted, skipped, assertions removed), not only edited; an
// attempt flagged whose trigger the report lacks counts as weakening.
func (f prFacts) weakens(r *state.Record) bool {
	if r == nil || !slices.Contains(r.Triggers, decision.TriggerTestTampering) {
		return false
	}
	t, ok := f.tamperTrigger(r)
	return !ok || t.Severity >= weakenedSeverity
}

// weakenedSeverity is the tamper trigger's severity for tests weakened (the
// decision engine's 0.9); an edit of a test file is below it.
const weakenedSeverity = 0.9

// gatesMD is the table of the gates before the first iteration (the
// baseline) and after the last.
func (f prFacts) gatesMD() string {
	var b strings.Builder
	b.WriteString("### Gates\n\nRun by agentloop itself on the code before the first iteration and after the last.")
	if f.accepted {
		fmt.Fprintf(&b, " After: attempt %d, whose checkpoint a person accepted.", seqOf(*f.last))
	}
	b.WriteString("\n\n")
	var names []string
	required := map[string]bool{}
	for _, g := range f.s.Baseline {
		names = append(names, g.Name)
		required[g.Name] = g.Required
	}
	if f.last != nil {
		for _, g := range f.last.Gates {
			if !slices.Contains(names, g.Name) {
				names = append(names, g.Name)
			}
			required[g.Name] = g.Required
		}
	}
	if len(names) == 0 {
		b.WriteString("No gate ran: nothing outside the agent judged this work.\n\n")
		return b.String()
	}
	b.WriteString("| gate | | before (baseline) | after |\n|---|---|---|---|\n")
	for _, n := range names {
		req := "optional"
		if required[n] {
			req = "required"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCode(n), req, f.beforeCell(n), f.afterCell(n))
	}
	b.WriteString("\n")
	return b.String()
}

func (f prFacts) beforeCell(name string) string {
	if !f.s.BaselineDone {
		return "not run"
	}
	for _, g := range f.s.Baseline {
		if g.Name != name {
			continue
		}
		switch {
		case g.Infra:
			return "⚠️ could not run"
		case g.Passed:
			return "✅ pass"
		}
		return "❌ fail" + failingCount(len(f.before[name]))
	}
	return "not run"
}

func (f prFacts) afterCell(name string) string {
	if f.last == nil {
		return "no iteration"
	}
	for _, g := range f.last.Gates {
		if g.Name != name {
			continue
		}
		switch {
		case g.Infra:
			return "⚠️ could not run"
		case g.Passed:
			return "✅ pass"
		case f.onlyOutside(g):
			return fmt.Sprintf("❌ fail: only the %s there before the run, outside the task", plural(len(g.Keys), "failure"))
		}
		return "❌ fail" + failingCount(max(len(g.Keys), g.Failures))
	}
	return "not run"
}

// failingCount is ", 3 failing", "" for none counted.
func failingCount(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d failing", n)
}

// maxNamed bounds each list of failures the body names; the full report has
// them all.
const maxNamed = 100

// failuresMD names the failures the baseline had that pass now, those left,
// and those that fail now and did not before.
func (f prFacts) failuresMD() string {
	if f.last == nil {
		return ""
	}
	var fixed, left, added []string
	outside := 0
	for _, g := range f.last.Gates {
		before := f.before[g.Name]
		if g.Infra {
			continue // it did not run: nothing is known fixed
		}
		for _, k := range before {
			if slices.Contains(g.Keys, k) {
				label := mdCode(gate.Label(k))
				if f.outside[k] {
					label += " (outside the task)"
					outside++
				}
				left = append(left, label)
			} else {
				fixed = append(fixed, mdCode(gate.Label(k)))
			}
		}
		if !f.s.BaselineDone {
			continue
		}
		for _, k := range g.Keys {
			if !slices.Contains(before, k) {
				added = append(added, mdCode(gate.Label(k)))
			}
		}
	}
	var b strings.Builder
	list := func(head string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n\n", head, len(items))
		for i, it := range items {
			if i == maxNamed {
				fmt.Fprintf(&b, "- … and %d more\n", len(items)-maxNamed)
				break
			}
			b.WriteString("- " + it + "\n")
		}
		b.WriteString("\n")
	}
	list("Fixed: failing before the run, passing now", fixed)
	if len(fixed) > 0 && f.weakens(f.last) {
		b.WriteString("⚠️ The tamper check below found the tests weakened: a test deleted or skipped is not failing, and not fixed either.\n\n")
	}
	list("Left: failing before the run and still failing", left)
	if outside > 0 {
		b.WriteString("Outside the task: " + outsideTaskText + "\n\n")
	}
	list("Failing now, not before the run", added)
	return b.String()
}

// tamperMD is the tamper check's verdict: agentloop's check of every
// attempt's diff (test files deleted or edited, skips added, assertions
// removed) and of the run's diff since its start.
func (f prFacts) tamperMD() string {
	var b strings.Builder
	b.WriteString("### Tamper check\n\n")
	switch {
	case f.last == nil:
		b.WriteString("No iteration was recorded: there is no diff to check.\n\n")
		return b.String()
	case !f.diffed():
		b.WriteString("agentloop kept no checkpoints of this run (outside git, or checkpoints off): it had no diff to check for tampering.\n\n")
		return b.String()
	case len(f.flagged) == 0:
		b.WriteString("✅ No attempt deleted, skipped or weakened a test or edited a test file (agentloop's check of each attempt's diff, and of the run's diff since its start).\n\n")
		return b.String()
	}
	if f.weakens(f.last) {
		b.WriteString("⚠️ **The last attempt leaves the tests weakened.**\n\n")
	} else if f.last != f.flagged[len(f.flagged)-1] {
		b.WriteString("The last attempt's check found no test deleted, skipped or weakened since the run's start. Earlier attempts were flagged; a test file they edited may still be edited:\n\n")
	} else {
		b.WriteString("⚠️ The last attempt edited test files; no test is deleted, skipped or weakened since the run's start.\n\n")
	}
	b.WriteString("| attempt | found | kind |\n|---:|---|---|\n")
	for _, r := range f.flagged {
		what, kind := "flagged (the attempt's decision is not in the records this body was written from)", "unknown"
		if t, ok := f.tamperTrigger(r); ok {
			what = mdText(t.Evidence)
			kind = map[bool]string{true: "weakened", false: "edited"}[t.Severity >= weakenedSeverity]
		}
		fmt.Fprintf(&b, "| %d | %s | %s |\n", seqOf(*r), what, kind)
	}
	b.WriteString("\n")
	return b.String()
}

// reviewerMD is the reviewer's verdict on the last attempt it judged, and
// its reasons, quoted as its words.
func (f prFacts) reviewerMD() string {
	var b strings.Builder
	b.WriteString("### Reviewer\n\n")
	r := f.reviewed
	if r == nil {
		b.WriteString("No reviewer judged this run's work.\n\n")
		return b.String()
	}
	fmt.Fprintf(&b, "The reviewer agent's verdict on attempt %d: **%s**", seqOf(*r), mdText(r.Review))
	if r.ReviewScore > 0 {
		fmt.Fprintf(&b, " (score %.1f/10)", r.ReviewScore)
	}
	b.WriteString(".")
	if r != f.last {
		b.WriteString(" The attempts after it were not reviewed (the reviewer judges an attempt whose required gates pass).")
	}
	b.WriteString("\n\n")
	rv := f.attempt(r).Review
	if rv == nil {
		b.WriteString("Its reasons are not in the records this body was written from.\n\n")
		return b.String()
	}
	var words []string
	if s := strings.TrimSpace(rv.Summary); s != "" {
		words = append(words, s)
	}
	for _, x := range rv.Findings {
		line := "- [" + cmp.Or(x.Severity, "note") + "] "
		if x.File != "" {
			line += x.File
			if x.Line > 0 {
				line += fmt.Sprintf(":%d", x.Line)
			}
			line += ": "
		}
		line += x.Message
		if x.FixHint != "" {
			line += " (fix: " + x.FixHint + ")"
		}
		words = append(words, line)
	}
	if len(words) == 0 {
		b.WriteString("It gave no reasons.\n\n")
		return b.String()
	}
	b.WriteString("Its reasons, in its words:\n\n" + fence(strings.Join(words, "\n"), maxQuoted) + "\n")
	return b.String()
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
