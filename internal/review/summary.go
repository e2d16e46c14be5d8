package review

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// capDiff keeps the first max bytes of diff, cut at a line end, and says how
// much was left out and which files the reviewer does not see at all.
func capDiff(diff string, max int) (string, string) {
	if len(diff) <= max {
		return diff, ""
	}
	cut := strings.LastIndexByte(diff[:max], '\n') + 1
	if cut == 0 {
		cut = max
		for cut > 0 && !utf8.RuneStart(diff[cut]) {
			cut--
		}
	}
	rest := diff[cut:]
	var hidden []string
	for l := range strings.SplitSeq(rest, "\n") {
		if name, ok := strings.CutPrefix(l, "diff --git "); ok {
			if i := strings.Index(name, " b/"); i >= 0 {
				name = name[i+3:]
			}
			hidden = append(hidden, name)
		}
	}
	note := fmt.Sprintf("[diff cut: %d of %d bytes (%d lines) not shown]", len(rest), len(diff), strings.Count(rest, "\n"))
	if len(hidden) > 0 {
		const show = 20
		more := ""
		if len(hidden) > show {
			more = fmt.Sprintf(" and %d more", len(hidden)-show)
			hidden = hidden[:show]
		}
		note += fmt.Sprintf("\n[files changed but not shown: %s%s — read them from the work tree if they matter]", strings.Join(hidden, ", "), more)
	}
	return diff[:cut], note
}

// OutsideTaskHeading heads, in the reviewer's prompt, the failures that were
// there before the run and are outside the task ([Input.OutsideTask]).
const OutsideTaskHeading = "Failing before this change, outside the task"

// outsideTaskText says what the failures under [OutsideTaskHeading] are and
// that they do not stand in the way of an approval.
const outsideTaskText = "These failed on the untouched code before the implementer started, the task does not name them, " +
	"the change does not touch their files and they fail the same way now: agentloop sets them aside. A required gate that " +
	"failed only on them does not stand in the way of an approval, and they are not the implementer's to fix. " +
	"Any other failure of a required gate does."

// outsideSummary lists the gates' failures outside the task, one a line, in
// the gates' order.
func outsideSummary(gates []evidence.GateResult, outside map[string][]evidence.Finding) string {
	var b strings.Builder
	for _, g := range gates {
		for _, f := range outside[g.Name] {
			b.WriteString("- " + g.Name + ": " + findingLine(f) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// gateSummary describes the gate results: status, counts and the first
// findings; a failure outside the task (outside) is said to be.
func gateSummary(gates []evidence.GateResult, outside map[string][]evidence.Finding) string {
	var b strings.Builder
	for _, g := range gates {
		req := "required"
		if !g.Required {
			req = "optional"
		}
		status := "PASSED"
		switch {
		case g.Infra:
			status = "COULD NOT RUN (" + orNone(g.InfraReason, "infrastructure problem") + "; not a verdict on the code)"
		case !g.Passed:
			status = fmt.Sprintf("FAILED (exit %d)", g.ExitCode)
		}
		fmt.Fprintf(&b, "- %s (%s): %s", g.Name, req, status)
		if t := g.Tests; t.Passed+t.Failed+t.Skipped > 0 {
			fmt.Fprintf(&b, "; tests: %d passed, %d failed, %d skipped", t.Passed, t.Failed, t.Skipped)
		}
		if n := len(g.Preexisting); n > 0 {
			fmt.Fprintf(&b, "; %d failure(s) existed before this change", n)
			if m := len(outside[g.Name]); m > 0 {
				fmt.Fprintf(&b, ", %d of them outside the task (listed under %q)", m, OutsideTaskHeading)
			}
		}
		if n := len(g.Fixed); n > 0 {
			fmt.Fprintf(&b, "; %d earlier failure(s) now fixed", n)
		}
		b.WriteString("\n")
		const show = 5
		for i, f := range g.Findings {
			if i == show {
				fmt.Fprintf(&b, "  - … and %d more\n", len(g.Findings)-show)
				break
			}
			b.WriteString("  - " + findingLine(f) + "\n")
		}
		if !g.Passed && !g.Infra && len(g.Findings) == 0 && strings.TrimSpace(g.Tail) != "" {
			b.WriteString("  last output:\n" + indent(tail(g.Tail, 1500), "    ") + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func findingLine(f evidence.Finding) string {
	var b strings.Builder
	b.WriteString(string(f.Kind))
	if f.File != "" {
		b.WriteString(" " + f.File)
		if f.Line > 0 {
			fmt.Fprintf(&b, ":%d", f.Line)
		}
	}
	if f.ID != "" {
		b.WriteString(" " + f.ID)
	}
	if msg := textcut.Bytes(textcut.Line(f.Message), 200); msg != "" {
		b.WriteString(": " + msg)
	}
	return b.String()
}

// factSummary lists the diff facts that deserve the reviewer's attention.
func factSummary(f *evidence.DiffFacts) string {
	if f == nil {
		return ""
	}
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, "- "+fmt.Sprintf(format, args...)) }
	add("%d file(s) changed, +%d -%d lines", len(f.Files), f.Added, f.Deleted)
	if len(f.TestFilesDeleted) > 0 {
		add("test files deleted: %s", list(f.TestFilesDeleted))
	}
	if f.SkipsAdded > 0 {
		add("%d test skip marker(s) added", f.SkipsAdded)
	}
	if f.AssertsRemoved > 0 {
		add("%d assertion(s) removed", f.AssertsRemoved)
	}
	if len(f.TestFilesChanged) > 0 {
		add("test files changed: %s", list(f.TestFilesChanged))
	}
	if len(f.ProtectedTouched) > 0 {
		add("protected paths changed: %s", list(f.ProtectedTouched))
	}
	if len(f.OutsideScope) > 0 {
		add("files outside the task's scope: %s", list(f.OutsideScope))
	}
	if len(f.NewDeps) > 0 {
		add("new dependencies: %s", list(f.NewDeps))
	}
	if len(f.ExportedChanged) > 0 {
		add("exported API changed: %s", list(f.ExportedChanged))
	}
	if f.SecretsFound > 0 {
		add("%d line(s) that look like secrets were added", f.SecretsFound)
	}
	return strings.Join(lines, "\n")
}

// previousSummary renders the last round's verdict for a follow-up review.
func previousSummary(r *evidence.Review) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Verdict %s, score %g", r.Verdict, r.Score)
	if s := textcut.Bytes(textcut.Line(r.Summary), 300); s != "" {
		b.WriteString(": " + s)
	}
	b.WriteString("\n")
	for _, f := range r.Findings {
		loc := f.File
		if f.Line > 0 {
			loc += fmt.Sprintf(":%d", f.Line)
		}
		fmt.Fprintf(&b, "- [%s] %s %s: %s\n", f.Severity, f.ID, loc, textcut.Bytes(textcut.Line(f.Message), 200))
	}
	return b.String()
}

func list(s []string) string {
	const show = 10
	if len(s) > show {
		return strings.Join(s[:show], ", ") + fmt.Sprintf(" and %d more", len(s)-show)
	}
	return strings.Join(s, ", ")
}

// tail keeps the last n bytes of s, from a line start when it can.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}
