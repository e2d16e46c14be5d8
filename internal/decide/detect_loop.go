package decide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
)

// detectStuck finds three stuck shapes: the same failure
// fingerprint StuckRepeats times in a row (the baseline counted: a first
// iteration that leaves the baseline's failures as they were is a repeat); no
// diff, or the same diff, twice in a row; a return to a code state seen before
// the previous iteration.
func detectStuck(f *facts) []decision.Trigger {
	all, cur := f.seq, f.cur
	past := all[:len(all)-1]
	if cur.Succeeded {
		return nil
	}
	if tr, n := f.trend(), f.p.StuckRepeats; n > 1 && cur.FP != "" && len(tr) >= n {
		same := true
		for _, p := range tr[len(tr)-n:] {
			same = same && p.FP == cur.FP
		}
		switch {
		case same && tr[len(tr)-n].N == 0:
			return []decision.Trigger{trig(decision.TriggerStuck, 0.8, false, "the same failures as before the run after %s: %s", plural(n-1, "iteration"), first(cur.Failing))}
		case same:
			return []decision.Trigger{trig(decision.TriggerStuck, 0.8, false, "same failures %d iterations in a row: %s", n, first(cur.Failing))}
		}
	}
	if len(past) > 0 {
		prev := past[len(past)-1]
		switch {
		case cur.DiffEmpty && prev.DiffEmpty:
			return []decision.Trigger{trig(decision.TriggerStuck, 0.8, false, "no change to the code two iterations in a row")}
		case cur.DiffHash != "" && cur.DiffHash == prev.DiffHash:
			return []decision.Trigger{trig(decision.TriggerStuck, 0.8, false, "the same diff two iterations in a row")}
		}
	}
	if cur.TreeHash != "" && len(past) >= 2 {
		for _, p := range past[:len(past)-1] {
			if p.TreeHash == cur.TreeHash && !p.Succeeded {
				return []decision.Trigger{trig(decision.TriggerStuck, 0.7, false, "back to the code state of iteration %d", p.N)}
			}
		}
	}
	return nil
}

// detectOscillation finds A-B-A (medium) and A-B-A-B (high) over failure
// fingerprints, the baseline counted as the first A. When the two failing sets
// are disjoint, the agent's fix for one breaks the other and back: that is
// what the trigger says, naming both. It is the agent going round, not a
// conflict between the requirements: both tests can be valid.
func detectOscillation(f *facts) []decision.Trigger {
	all := f.trend()
	n := len(all)
	if n < 3 || f.cur.Succeeded {
		return nil
	}
	a, b, c := all[n-3], all[n-2], all[n-1]
	if c.FP == "" || b.FP == "" || c.FP != a.FP || c.FP == b.FP {
		return nil
	}
	from, sev, shape := a, 0.6, "A-B-A"
	if n >= 4 && all[n-4].FP == b.FP {
		from, sev, shape = all[n-4], 0.85, "A-B-A-B"
	}
	what := "failures alternate " + shape
	if !intersects(c.Failing, b.Failing) {
		what = fmt.Sprintf("the fix for %s breaks %s, and the fix for %s breaks %s again", first(c.Failing), first(b.Failing), first(b.Failing), first(c.Failing))
	}
	return []decision.Trigger{trig(decision.TriggerOscillation, sev, false, "%s (%s)", what, span(from, c))}
}

// detectChurn finds the agent trading failures: over the last three points
// of the trend or more (the baseline counted), the number of failing tests
// stays the same while the set changes every iteration, each fixing some
// and breaking as many others, no set seen twice (that is an oscillation).
// Its evidence is the chain of what failed: "each iteration fixes one test
// and breaks another: TestA→TestB→TestC".
func detectChurn(f *facts) []decision.Trigger {
	tr := f.trend()
	n := len(tr)
	if n < 3 || f.cur.Succeeded {
		return nil
	}
	k := len(f.cur.Failing)
	from := n - 1
	seen := map[string]bool{f.cur.FP: true}
	for i := n - 2; i >= 0; i-- {
		p, next := tr[i], tr[i+1]
		if p.Quality <= 0 || len(p.Failing) != k || seen[p.FP] || !traded(p.Failing, next.Failing) {
			break
		}
		seen[p.FP] = true
		from = i
	}
	if k == 0 || f.cur.Quality <= 0 || n-from < 3 || !moving(tr[from:]) {
		return nil
	}
	var chain []string
	for _, p := range tr[from:] {
		chain = append(chain, first(p.Failing))
	}
	what := "each iteration fixes one test and breaks another"
	if k > 1 {
		what = fmt.Sprintf("each iteration fixes failing tests and breaks as many others (%d failing each time)", k)
	}
	return []decision.Trigger{trig(decision.TriggerChurn, 0.7, false, "%s: %s", what, strings.Join(chain, "→"))}
}

// moving reports whether the whole failing set moves over the points: no
// test fails at every one of them, and none that was fixed fails again (a
// swap among tests that keep failing is no churn, but noise on a plateau).
func moving(ps []point) bool {
	for _, k := range ps[0].Failing {
		every := true
		for _, p := range ps[1:] {
			every = every && slices.Contains(p.Failing, k)
		}
		if every {
			return false
		}
	}
	for i := 1; i < len(ps); i++ {
		for _, k := range ps[i].Failing {
			if slices.Contains(ps[i-1].Failing, k) {
				continue
			}
			for _, p := range ps[:i-1] {
				if slices.Contains(p.Failing, k) {
					return false // fixed, then broken again
				}
			}
		}
	}
	return true
}

// traded reports whether going from the failing set a to b fixed at least
// one test and broke at least one.
func traded(a, b []string) bool {
	fixed, broke := false, false
	for _, x := range a {
		fixed = fixed || !slices.Contains(b, x)
	}
	for _, x := range b {
		broke = broke || !slices.Contains(a, x)
	}
	return fixed && broke
}

// span names the iterations from a to b, the baseline as such.
func span(a, b point) string {
	if a.N == 0 {
		return fmt.Sprintf("from the baseline to iteration %d", b.N)
	}
	return fmt.Sprintf("iterations %d-%d", a.N, b.N)
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// detectRegression finds tests that passed in the previous iteration (it built and
// they were not failing) and fail now, and a quality more than 0.05 below the best.
func detectRegression(f *facts) []decision.Trigger {
	past := f.seq[:len(f.seq)-1]
	if len(past) == 0 {
		return nil
	}
	prev := past[len(past)-1]
	var broke []string
	if prev.Quality > 0 && f.cur.Quality > 0 {
		for _, g := range f.ev.Gates {
			for _, fd := range g.Findings {
				k := gate.Key(fd)
				if fd.Kind == evidence.KindTest && !fd.Flaky && !slices.Contains(prev.Failing, k) {
					broke = append(broke, k)
				}
			}
		}
	}
	best := 0.0
	for _, p := range past {
		best = max(best, p.Quality)
	}
	switch b, ok := bestPoint(past); {
	case len(broke) > 0:
		slices.Sort(broke)
		return []decision.Trigger{trig(decision.TriggerRegression, 0.6, true, "%d tests that passed now fail: %s", len(broke), first(broke))}
	case ok && b.Quality > f.cur.Quality+0.05 && f.cur.Quality > 0:
		// Back to failures the best checkpoint did not have (after a
		// rollback to it, the same break again): name them.
		var again []string
		for _, k := range f.cur.Failing {
			if !slices.Contains(b.Failing, k) {
				again = append(again, k)
			}
		}
		if len(again) > 0 {
			return []decision.Trigger{trig(decision.TriggerRegression, 0.6, true, "%d tests that pass at iteration %d (the best) fail now: %s", len(again), b.N, first(again))}
		}
		return []decision.Trigger{trig(decision.TriggerRegression, 0.5, true, "quality %.2f fell below the best %.2f", f.cur.Quality, best)}
	case f.cur.Quality < best-0.05:
		return []decision.Trigger{trig(decision.TriggerRegression, 0.5, true, "quality %.2f fell below the best %.2f", f.cur.Quality, best)}
	}
	return nil
}

// plateauInfo is the improvement picture of a segment.
type plateauInfo struct {
	Stalled  bool    // the best quality did not rise by epsilon in the last Patience iterations
	Variance float64 // of the last 3 quality scores
	LowVar   bool    // the specification's rule: variance of the last 3 < 0.02
	Slope    float64 // mean change per iteration over the last 3
}

func plateau(qs []float64, p Policy) plateauInfo {
	var pi plateauInfo
	n := len(qs)
	if n >= 3 {
		last := qs[n-3:]
		mean := (last[0] + last[1] + last[2]) / 3
		for _, q := range last {
			pi.Variance += (q - mean) * (q - mean) / 3
		}
		pi.LowVar = pi.Variance < 0.02
		pi.Slope = (last[2] - last[0]) / 2
	}
	if p.Patience > 0 && n > p.Patience {
		before := slices.Max(qs[:n-p.Patience])
		pi.Stalled = slices.Max(qs) < before+p.Epsilon
	}
	return pi
}

// detectPlateau fires when the best quality has not improved by Epsilon for
// Patience iterations. The specification's variance rule (< 0.02 over the last 3)
// alone is true of steady progress on a 0–1 scale (0.5, 0.6, 0.7 has variance
// 0.007), so it is reported in the assessment but only fires with a stall.
func detectPlateau(f *facts) []decision.Trigger {
	if f.cur.Succeeded {
		return nil
	}
	qs := make([]float64, 0, len(f.seq))
	for _, p := range f.seq {
		qs = append(qs, p.Quality)
	}
	pi := plateau(qs, f.p)
	if !pi.Stalled {
		return nil
	}
	return []decision.Trigger{trig(decision.TriggerPlateau, 0.6, false, "best quality %.2f not improved by %.2f in %d iterations (variance of last 3: %.4f)",
		slices.Max(qs), f.p.Epsilon, f.p.Patience, pi.Variance)}
}
