package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/state"
)

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
