package decide

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// said is the reason of a choice in the words a person reads on the terminal,
// in escalation.md and in the run's state. A run that made no progress is
// told as such ("no progress for 4 iterations, still 1 failure (TestX)"), not
// by its detector's figures (quality, epsilon, variance) nor by the names of
// the rules that fired ("still stuck after 1 simplification: stuck: …"). The
// figures stay in the decision document: its reason and its triggers'
// evidence. Reasons already in plain words (an oscillation, the shapes of
// stuck) are kept.
func said(f *facts, ts []decision.Trigger, c choice) string {
	if hasTrigger(f.cur, decision.TriggerOscillation) || c.rule != RuleStuck && c.rule != RulePlateau {
		return c.reason
	}
	n := stalled(f)
	still := ""
	if k := len(f.cur.Failing); k > 0 {
		still = fmt.Sprintf(", still %s (%s)", plural(k, "failure"), first(f.cur.Failing))
	}
	switch {
	case c.action == state.ActionEscalate && c.class == decision.TriggerStuck:
		tried := "a fresh attempt"
		if s := simplifiesSinceBest(f); s > 1 {
			tried = plural(s, "fresh attempt")
		}
		from := " from the best checkpoint"
		if !f.checkpoints() {
			from = " (from the work tree as it was: checkpoints are off)"
		}
		why := fmt.Sprintf("no progress for %s%s; %s%s did not help", plural(n, "iteration"), still, tried, from)
		if r, ok := find(ts, decision.TriggerRegression); ok && regressedBefore(f) {
			why += "; regression again: " + r.Evidence // it came back after its rollback
		}
		return why
	case c.rule == RulePlateau && c.action == state.ActionSimplify:
		if !f.checkpoints() {
			return fmt.Sprintf("the best result has not improved for %s%s: a fresh attempt, from the work tree as it is (checkpoints are off)", plural(n, "iteration"), still)
		}
		return fmt.Sprintf("the best result has not improved for %s%s: a fresh attempt from the best checkpoint", plural(n, "iteration"), still)
	case c.rule == RulePlateau && c.action == state.ActionExpand:
		return fmt.Sprintf("the best result has not improved for %s%s: the files and symbols the errors name go into the prompt", plural(n, "iteration"), still)
	}
	return c.reason
}

// stalled is how many iterations in a row (the present one included) did not
// raise the best quality, the baseline's counted as where the run started:
// every iteration when none ran the checks.
func stalled(f *facts) int {
	tr := f.trend()
	best, at := 0.0, -1
	for i, p := range tr {
		if p.Quality >= best+f.p.Epsilon {
			best, at = p.Quality, i
		}
	}
	if at < 0 {
		return len(f.seq)
	}
	return len(tr) - 1 - at
}
