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
	// ReportFlags follow the command that writes the full report when it
	// is named: the flags naming the run's engine ("--engine temporal …").
	ReportFlags string
	// MaxLength caps the body, in bytes (no more characters than that);
	// 0 is [PRBodyMax]. The longest sections are cut first, each with a
	// line that says so; the verdict and the gates table never are.
	MaxLength int
	// Redactor redacts the body once more before it leaves the machine (the
	// records are redacted already as they are written); nil redacts the
	// credential shapes and the secret values of Environ.
	Redactor *redact.Redactor
	// Environ is the environment (KEY=VALUE) whose secret values a body
	// without a Redactor is redacted of.
	Environ []string
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
		red = redact.New(o.Environ)
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
