package decide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
)

// verdict is what an iteration showed, in the words a person reads beside it,
// and whether it counts toward the failure threshold. An iteration that broke
// something or made no progress is a failure whatever the engine does next
// (retry, expand and simplify included): the threshold counts what the user
// sees.
type verdict struct {
	label  string // "failed: build broken", "no progress", "progress: 2 of 5 fixed"; "" when the goal is met
	failed bool
}

// judge labels the present iteration by its evidence, against the iteration
// before it (or the baseline, for the first).
func judge(f *facts) verdict {
	v := judgeEvidence(f)
	// A flaky failure is said, never counted: "progress: 1 of 2 fixed; flaky:
	// failed then passed: calc.TestClock".
	if note := gate.FlakyNote(f.ev.Gates); note != "" {
		v.label = strings.TrimPrefix(v.label+"; "+note, "; ")
	}
	return v
}

func judgeEvidence(f *facts) verdict {
	ev := f.ev
	if f.cur.Succeeded {
		return verdict{}
	}
	failed := func(format string, args ...any) verdict {
		return verdict{label: "failed: " + fmt.Sprintf(format, args...), failed: true}
	}
	if f.weakened != "" {
		return failed("weakened the tests (%s)", f.weakened)
	}
	switch {
	case ev.Agent.RateLimited:
		return failed("rate limited")
	case ev.Agent.Failed() || ev.Agent.Transient:
		// The agent's own outcome: "agent crashed: exited 1 before any output".
		return verdict{label: "agent " + ev.Agent.Summary(), failed: true}
	}
	for _, g := range ev.Gates {
		if g.Required && g.Infra {
			return failed("gate %s could not run", g.Name)
		}
	}
	if buildBroken(ev) {
		return failed("build broken")
	}
	// A flaky test failed, then passed on rerun: it is not failing.
	var flaky []string
	for _, g := range ev.Gates {
		for _, fd := range g.Findings {
			if fd.Flaky {
				flaky = append(flaky, gate.Key(fd))
			}
		}
	}
	cur := slices.DeleteFunc(slices.Clone(f.cur.Failing), func(k string) bool { return slices.Contains(flaky, k) })
	ref, ok := reference(f)
	if ok {
		var broke, fixed []string
		for _, k := range cur {
			if !slices.Contains(ref, k) {
				broke = append(broke, k)
			}
		}
		for _, k := range ref {
			if !slices.Contains(cur, k) {
				fixed = append(fixed, k)
			}
		}
		switch {
		case len(broke) > 0:
			return failed("broke %s", first(broke))
		case len(fixed) > 0:
			return verdict{label: fmt.Sprintf("progress: %d of %d fixed", len(fixed), len(ref))}
		}
	}
	if newBest(f) {
		return verdict{label: fmt.Sprintf("progress: quality %s", num(f.cur.Quality))}
	}
	if !ok {
		return verdict{label: "nothing fixed yet", failed: true}
	}
	return verdict{label: "no progress", failed: true}
}

// reference is the failing keys the present iteration is measured against: the
// last iteration before it whose tests ran (one the infrastructure spoiled, one
// with the build broken and one that weakened the tests say nothing about the
// tests: against a broken build every failing test would look newly broken),
// else the baseline of a run's first segment, or the iteration a later segment
// started from.
func reference(f *facts) ([]string, bool) {
	past := f.seq[:len(f.seq)-1]
	for i := len(past) - 1; i >= 0; i-- {
		if past[i].Quality > 0 {
			return past[i].Failing, true
		}
	}
	switch {
	case f.base != nil:
		return f.base.Failing, true
	case f.start != nil:
		return f.start.Failing, true
	case len(past) > 0:
		return past[len(past)-1].Failing, true
	}
	return nil, false
}

// buildBroken reports whether a required gate failed with a build or crash
// finding: nothing else could be judged.
func buildBroken(ev evidence.Iteration) bool {
	for _, g := range ev.Gates {
		if !g.Required {
			continue
		}
		for _, fd := range g.Findings {
			if fd.Kind == evidence.KindBuild || fd.Kind == evidence.KindCrash {
				return true
			}
		}
	}
	return false
}

// newBest reports whether the present quality beats every earlier iteration of
// the segment by Epsilon.
func newBest(f *facts) bool {
	if len(f.past) == 0 {
		return false
	}
	best := 0.0
	for _, p := range f.past {
		best = max(best, p.Quality)
	}
	return f.cur.Quality >= best+f.p.Epsilon
}
