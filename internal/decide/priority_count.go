package decide

import "github.com/agentloop/agentloop/internal/decision"

func firstOf(ts []decision.Trigger, ids ...string) (decision.Trigger, bool) {
	for _, id := range ids {
		if t, ok := find(ts, id); ok {
			return t, true
		}
	}
	return decision.Trigger{}, false
}

func seenBefore(f *facts, id string) bool {
	for _, p := range f.past {
		if hasTrigger(p, id) {
			return true
		}
	}
	return false
}

// reviewRounds counts the reviewer's non-approvals in this segment, the present
// included.
func reviewRounds(f *facts) int {
	n := 0
	for _, p := range f.all {
		if p.Review == "request_changes" || p.Review == "reject" {
			n++
		}
	}
	return n
}

// simplifiesSinceBest counts simplifications chosen since the last iteration
// that raised the best quality by Epsilon.
func simplifiesSinceBest(f *facts) int {
	bestIdx, best := 0, -1.0
	for i, p := range f.past {
		if p.Quality >= best+f.p.Epsilon {
			bestIdx, best = i, p.Quality
		}
	}
	if f.cur.Quality >= best+f.p.Epsilon && best >= 0 {
		return 0
	}
	return countStrategy(f.past[min(bestIdx, len(f.past)):], "simplify")
}

// regressedBefore reports whether the iteration before the present one (of
// those the infrastructure did not spoil) regressed too: the regression came
// back after its rollback.
func regressedBefore(f *facts) bool {
	n := len(f.seq)
	return n >= 2 && hasTrigger(f.seq[n-2], decision.TriggerRegression)
}

func attempt(f *facts) int { return max(f.in.State.Next.Attempt, 1) }
