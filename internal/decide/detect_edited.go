package decide

import (
	"regexp"
	"slices"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
)

// editedToPass names the tests that failed at the run's start and pass now
// after the run edited their test file: the agent changed what a test checks
// instead of the code, the way a run "passes" tests that contradict its task
// or each other (ImpossibleBench's cheat), with no assertion removed and no
// skip added. A test the task names with words asking to change it is not
// counted, nor one removed (weakened judges that); nor is any when the policy
// allows test edits.
func editedToPass(ev evidence.Iteration, baseline []evidence.GateResult, task string) []string {
	d := ev.Diff // the first iteration's diff is the run's
	switch {
	case d.SinceStart != nil:
		d = *d.SinceStart
	case ev.N > 1:
		return nil // without the diff since the start, restoring a skip would read as an edit
	}
	if len(d.TestFilesChanged) == 0 {
		return nil
	}
	now := map[string]bool{}
	for _, k := range Failing(ev) {
		now[k] = true
	}
	var out []string
	for _, g := range baseline {
		if g.Infra {
			continue
		}
		for _, f := range slices.Concat(g.Findings, g.Preexisting) {
			short := f.ID
			if m := testFuncName().FindStringSubmatch(f.ID); m != nil {
				short = m[1]
			}
			if f.Kind != evidence.KindTest || now[gate.Key(f)] || !touched(d.TestFilesChanged, f.File) || touched(d.TestFilesDeleted, f.File) ||
				slices.Contains(d.TestsRemoved, short) || names(task, f) && changeAsked().MatchString(task) {
				// A test removed is no test passing: its removal is weakened's
				// to judge (and the task's or a person's to ask for).
				continue
			}
			if s := f.ID + " (" + f.File + ")"; !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}

// testFuncName finds a test's function in a finding's ID
// ("example.com/calc.TestAbs/negative": TestAbs).
var testFuncName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[./ ])((?:Test|Example|Benchmark|Fuzz)\w*)`)
})

// changeAsked matches words of a task that ask to change a test it names.
var changeAsked = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(update|change|correct|rewrite|edit|fix)\w*\b`)
})
