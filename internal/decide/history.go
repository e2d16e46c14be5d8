package decide

import (
	"slices"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// point is one iteration as the detectors see it: the past from [state.Record]s,
// the present from the evidence just gathered.
type point struct {
	N         int
	Seq       int // the attempt's number in the run (0 in records of older builds)
	Failing   []string
	FP        string
	Quality   float64
	DiffHash  string
	TreeHash  string
	DiffEmpty bool
	Succeeded bool
	Review    string
	Strategy  string   // the strategy chosen after this iteration (empty for the present)
	Decision  string   // the action chosen after this iteration
	Triggers  []string // trigger ids found in this iteration
	Ref       string   // checkpoint of the tree after the iteration
	Cost      float64
	CostKnown bool // false: the CLI reported no cost (shown as unknown, never $0)
	Lines     int  // lines changed
	AgentExit int
	Summary   string
}

func fromRecord(r state.Record) point {
	failing := r.Failing
	if len(failing) == 0 {
		for _, g := range r.Gates {
			failing = append(failing, g.Keys...)
		}
		slices.Sort(failing)
		failing = slices.Compact(failing)
		failing = slices.DeleteFunc(failing, func(k string) bool { return slices.Contains(r.OutsideTask, k) })
	}
	// The fingerprint is computed again from the stored keys, never read back:
	// records of older versions hold fingerprints of another form, and the keys
	// are what the detectors compare.
	return point{
		N: r.N, Seq: r.Seq, Failing: failing, FP: fingerprint(failing), Quality: r.Quality, DiffHash: r.DiffHash, TreeHash: r.TreeHash,
		DiffEmpty: r.TreeHash != "" && r.DiffHash == "" && r.DiffLines == 0, Succeeded: r.Succeeded, Review: r.Review,
		Strategy: r.Strategy, Decision: r.Decision, Triggers: r.Triggers, Ref: r.Checkpoint,
		Cost: r.Usage.CostUSD, CostKnown: r.Usage.CostKnown, Summary: r.Summary, Lines: r.DiffLines, AgentExit: r.AgentExit,
	}
}

func fromEvidence(ev evidence.Iteration, failing []string, q float64) point {
	p := point{
		N: ev.N, Failing: failing, FP: fingerprint(failing), Quality: q, DiffHash: ev.Diff.Hash,
		TreeHash: ev.Diff.TreeHash, DiffEmpty: ev.Diff.TreeHash != "" && ev.Diff.Empty() && ev.Diff.Hash == "", Cost: ev.Agent.Usage.CostUSD, CostKnown: ev.Agent.Usage.CostKnown,
		Lines: ev.Diff.Added + ev.Diff.Deleted, AgentExit: ev.Agent.ExitCode,
	}
	if ev.Review != nil {
		p.Review = ev.Review.Verdict
	}
	return p
}

// segment returns the records of the present segment (since the last human
// guidance), before iteration n. Records carry their segment; those of older
// builds do not, and there a record whose N does not grow starts a new one (a
// guidance resets the iteration counter).
func segment(st *state.State, n int) []state.Record {
	h := st.History
	if len(h) > 0 && h[len(h)-1].Segment > 0 {
		i := len(h)
		for i > 0 && h[i-1].Segment == max(st.Segment, 1) {
			i--
		}
		return h[i:]
	}
	if len(h) > 0 && n > 0 && n <= h[len(h)-1].N {
		return h[len(h):]
	}
	start := 0
	for i := 1; i < len(h); i++ {
		if h[i].N <= h[i-1].N {
			start = i
		}
	}
	return h[start:]
}

// segmentStart is the iteration a segment after a guidance started from: the
// record whose checkpoint is the tree the guidance was given on, else the last
// earlier one whose tests ran. nil in the first segment.
func segmentStart(st *state.State, seg int) *point {
	h := st.History[:len(st.History)-seg]
	if len(h) == 0 {
		return nil
	}
	var tree string
	for i := len(st.Handoffs) - 1; i >= 0; i-- {
		if st.Handoffs[i].Kind == state.HandoffGuidance {
			tree = st.Handoffs[i].Checkpoint
			break
		}
	}
	for i := len(h) - 1; tree != "" && i >= 0; i-- {
		if h[i].Checkpoint == tree {
			p := fromRecord(h[i])
			return &p
		}
	}
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Quality > 0 {
			p := fromRecord(h[i])
			return &p
		}
	}
	return nil
}

// acknowledged returns the trigger ids of the escalation a human answered: the
// record just before the current segment escalated, and guidance came back. The
// same concern does not escalate again at once (the human has seen it); a secret
// in the diff always does.
func acknowledged(st *state.State, n int) map[string]bool {
	h := st.History
	seg := len(segment(st, n))
	if st.Guidance == "" || seg == len(h) {
		return nil
	}
	prev := h[len(h)-seg-1]
	if prev.Decision != string(state.ActionEscalate) {
		return nil
	}
	out := map[string]bool{}
	for _, id := range prev.Triggers {
		out[id] = true
	}
	return out
}

// trailing counts the points at the end of ps (the present excluded) whose
// strategy is s.
func trailing(past []point, s string) int {
	n := 0
	for i := len(past) - 1; i >= 0 && past[i].Strategy == s; i-- {
		n++
	}
	return n
}

func countStrategy(past []point, s string) int {
	n := 0
	for _, p := range past {
		if p.Strategy == s {
			n++
		}
	}
	return n
}

func hasTrigger(p point, id string) bool { return slices.Contains(p.Triggers, id) }

// bestPoint returns the highest-quality past point that has a checkpoint; ties
// go to the later one (it carries more work). A point of quality 0 (the build
// broken, or the tests weakened) is never the best.
func bestPoint(past []point) (point, bool) {
	var best point
	found := false
	for _, p := range past {
		if p.Ref == "" || p.Quality <= 0 {
			continue
		}
		if !found || p.Quality >= best.Quality {
			best, found = p, true
		}
	}
	return best, found
}

// failedStrategies returns the strategies that, chosen after an iteration with the
// trigger set ids, led to an iteration with the same trigger set and fingerprint:
// they changed nothing and must not be chosen again on those triggers.
func failedStrategies(ps []point, ids []string) map[string]bool {
	out := map[string]bool{}
	for i := 0; i+1 < len(ps); i++ {
		a, b := ps[i], ps[i+1]
		if a.Strategy == "" || !sameSet(a.Triggers, ids) || !sameSet(b.Triggers, ids) || a.FP != b.FP {
			continue
		}
		out[a.Strategy] = true
	}
	return out
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}
