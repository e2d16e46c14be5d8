package decide

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

func reviewTag(ev evidence.Iteration, tag string) bool {
	return ev.Review != nil && slices.Contains(ev.Review.Tags, tag)
}

// detectTampering reads the diff facts: skips added, assertions removed, test files
// deleted and the diff's tamper findings are serious (0.9); test files merely
// edited are a low-severity note unless the policy forbids test edits (0.5).
func detectTampering(f *facts) []decision.Trigger {
	if f.weakened != "" {
		return []decision.Trigger{trig(decision.TriggerTestTampering, 0.9, true, "%s", f.weakened)}
	}
	if d := f.ev.Diff; len(d.TestFilesChanged) > 0 {
		sev := 0.5
		if f.p.AllowTestEdits {
			sev = 0.2
		}
		return []decision.Trigger{trig(decision.TriggerTestTampering, sev, true, "test files edited: %s", strings.Join(d.TestFilesChanged, ", "))}
	}
	return nil
}

// weakening says how an iteration weakened the tests, from the diff facts and
// the reviewer's tag, and, when the iteration itself did not, how the run did
// since its start (tests it started with that are gone, skipped or weakened
// stay so until restored); nil when neither did. Tests the task or a person's
// guidance asks to remove by name are not counted.
func weakening(ev evidence.Iteration, task string) []string {
	what := weakened(ev.Diff, task)
	if reviewTag(ev, decision.TriggerTestTampering) {
		what = append(what, "the reviewer flagged test tampering")
	}
	if s := ev.Diff.SinceStart; len(what) == 0 && s != nil {
		if since := weakened(*s, task); len(since) > 0 {
			what = append(what, "since the run's start: "+strings.Join(since, ", "))
		}
	}
	return what
}

// weakened says how one diff weakened the tests.
func weakened(d evidence.DiffFacts, task string) []string {
	var what []string
	removed := d.TestsRemoved
	if asked(task, removed) {
		removed = nil
	} else if len(removed) > 0 {
		what = append(what, "tests removed: "+strings.Join(removed, ", "))
	}
	if d.SkipsAdded > 0 {
		what = append(what, plural(d.SkipsAdded, "skip")+" added")
	}
	if d.AssertsRemoved > 0 && (len(removed) > 0 || len(d.TestsRemoved) == 0) {
		// The assertions of tests the task asks to remove go with them.
		what = append(what, plural(d.AssertsRemoved, "assertion")+" removed")
	}
	if len(d.TestFilesDeleted) > 0 {
		what = append(what, "test files deleted: "+strings.Join(d.TestFilesDeleted, ", "))
	}
	if len(what) == 0 && len(d.TestsRemoved) == 0 {
		// Only weakening counts as serious: a plain edit of a test file (a
		// warning, such as restoring a test the agent had skipped) is a note.
		for _, t := range d.Tamper {
			if t.Severity == evidence.SeverityError {
				what = append(what, t.Message)
				break
			}
		}
	}
	return what
}

// asks is what the run was asked, by the task (its procedure's and the one
// it was told: --context, a graph task's text) and by a person's guidance since:
// the words that may ask for tests to be removed.
func asks(in state.DecideInput) string {
	var b []string
	if in.Spec != nil {
		b = append(b, in.Spec.Task, in.Spec.Told)
	}
	if in.State != nil {
		for _, h := range in.State.Handoffs {
			if h.Kind == state.HandoffGuidance || h.Kind == state.HandoffGuide {
				b = append(b, h.Text)
			}
		}
	}
	return strings.Join(b, "\n")
}

// asked reports whether the task asks to remove (or delete) each of the tests,
// naming it.
func asked(task string, tests []string) bool {
	lower := strings.ToLower(task)
	if len(tests) == 0 || !strings.Contains(lower, "remove") && !strings.Contains(lower, "delete") {
		return false
	}
	for _, t := range tests {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(t) + `\b`).MatchString(task) {
			return false
		}
	}
	return true
}

// detectSecurity: secrets in the diff (1.0, critical), the reviewer's security tag
// or a blocker or major finding whose words name a vulnerability (0.9),
// protected paths touched (0.8).
func detectSecurity(f *facts) []decision.Trigger {
	d := f.ev.Diff
	switch {
	case d.SecretsFound > 0:
		return []decision.Trigger{trig(decision.TriggerSecurity, 1, false, "%s found in the diff", plural(d.SecretsFound, "secret"))}
	}
	if q, ok := reviewConcern(f.ev, decision.TriggerSecurity, decision.TriggerSecurity); ok {
		return []decision.Trigger{trig(decision.TriggerSecurity, 0.9, false, "the reviewer raised a security concern: %s", q)}
	}
	switch {
	case len(d.ProtectedTouched) > 0:
		return []decision.Trigger{trig(decision.TriggerSecurity, 0.8, false, "protected paths touched: %s", strings.Join(d.ProtectedTouched, ", "))}
	}
	return nil
}

// detectScope: files outside the task's scope, a diff larger than DiffLinesLimit,
// or the reviewer's scope_creep tag.
func detectScope(f *facts) []decision.Trigger {
	d := f.ev.Diff
	if q, ok := reviewConcern(f.ev, decision.TriggerScopeCreep, "scope"); ok {
		return []decision.Trigger{trig(decision.TriggerScopeCreep, 0.7, true, "the reviewer flagged scope creep: %s", q)}
	}
	switch {
	case len(d.OutsideScope) > 0:
		return []decision.Trigger{trig(decision.TriggerScopeCreep, 0.6, true, "files outside the task's scope: %s", strings.Join(d.OutsideScope, ", "))}
	case f.p.DiffLinesLimit > 0 && d.Added+d.Deleted > f.p.DiffLinesLimit:
		return []decision.Trigger{trig(decision.TriggerScopeCreep, 0.6, true, "diff of %d lines, over the limit of %d", d.Added+d.Deleted, f.p.DiffLinesLimit)}
	}
	return nil
}

// detectArchitecture: new dependencies (0.8) and the reviewer's architecture tag
// (0.9) need a human; exported API changes alone (0.5) are noted, since adding an
// exported function is ordinary work.
func detectArchitecture(f *facts) []decision.Trigger {
	d := f.ev.Diff
	if q, ok := reviewConcern(f.ev, decision.TriggerArchitecture, "architect"); ok {
		return []decision.Trigger{trig(decision.TriggerArchitecture, 0.9, false, "the reviewer flagged architectural impact: %s", q)}
	}
	switch {
	case len(d.NewDeps) > 0:
		return []decision.Trigger{trig(decision.TriggerArchitecture, 0.8, false, "new dependencies: %s", strings.Join(d.NewDeps, ", "))}
	case len(d.ExportedChanged) > 0:
		return []decision.Trigger{trig(decision.TriggerArchitecture, 0.5, true, "exported API changed: %s", strings.Join(d.ExportedChanged, ", "))}
	}
	return nil
}

// detectMovedBranch: the agent changed agentloop's records in git (its
// checkpoint refs, the branch, HEAD) beyond a plain commit, which the engine
// undid (1.0, not fixable: a person must see it).
func detectMovedBranch(f *facts) []decision.Trigger {
	var what []string
	for _, c := range f.ev.Records {
		if c.Escalates() {
			what = append(what, c.String())
		}
	}
	if len(what) == 0 {
		return nil
	}
	return []decision.Trigger{trig(decision.TriggerMovedBranch, 1, false, "%s", strings.Join(what, "; "))}
}

func detectConflict(f *facts) []decision.Trigger {
	if q, ok := reviewConcern(f.ev, decision.TriggerConflict, "conflict"); ok {
		return []decision.Trigger{trig(decision.TriggerConflict, 0.9, false, "the reviewer found conflicting requirements: %s", q)}
	}
	return nil
}

// reviewQuote returns the reviewer finding that mentions word, or the summary.
func reviewQuote(ev evidence.Iteration, word string) string {
	r := ev.Review
	for _, fd := range r.Findings {
		if strings.Contains(strings.ToLower(fd.Message), word) {
			return clip(fd.Message, 160)
		}
	}
	if len(r.Findings) > 0 {
		return clip(r.Findings[0].Message, 160)
	}
	return clip(orText(r.Summary, "no details given"), 160)
}

var symbolPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`undefined: ([\w.]+)`),
		regexp.MustCompile(`(?i)cannot find module '([^']+)'`),
		regexp.MustCompile(`No module named '([^']+)'`),
		regexp.MustCompile(`name '(\w+)' is not defined`),
		regexp.MustCompile(`(\w+) is not defined`),
		regexp.MustCompile(`has no attribute '(\w+)'`),
		regexp.MustCompile(`Cannot find name '(\w+)'`),
		regexp.MustCompile(`no field or method (\w+)`),
		regexp.MustCompile(`open ([^\s:]+): no such file`),
		regexp.MustCompile(`could not import ([^\s]+)`),
		regexp.MustCompile(`cannot find package "([^"]+)"`),
	}
})

// namedSymbols returns the symbols, modules and files that errors say are missing
// (at most 10): the agent worked without them, so expand adds them to the context.
func namedSymbols(ev evidence.Iteration) []string {
	var out []string
	for _, g := range ev.Gates {
		for _, fd := range g.Findings {
			for _, re := range symbolPatterns() {
				if m := re.FindStringSubmatch(fd.Message); m != nil && !slices.Contains(out, m[1]) {
					out = append(out, m[1])
					break
				}
			}
		}
	}
	if reviewTag(ev, decision.TagMissingContext) {
		for _, fd := range ev.Review.Findings {
			if fd.File != "" && !slices.Contains(out, fd.File) {
				out = append(out, fd.File)
			}
		}
	}
	if len(out) > 10 {
		out = out[:10]
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return itoa(n) + " " + what + "s"
}
