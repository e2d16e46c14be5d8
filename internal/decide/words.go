package decide

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/loop"
)

// said is the reason of a choice in the words a person reads on the terminal,
// in escalation.md and in the run's state: a run that makes no progress is
// told as such ("no progress for 4 iterations: still 1 failure (TestX)"),
// not by its detector's figures (quality, epsilon, variance). The figures stay
// in the decision document: its reason and its triggers' evidence.
func said(f *facts, c choice) string {
	if c.rule != RuleStuck && c.rule != RulePlateau || c.class != "" && c.class != "stuck" {
		return c.reason
	}
	n := stalled(f)
	still := ""
	if k := len(f.cur.Failing); k > 0 {
		still = fmt.Sprintf(", still %s (%s)", plural(k, "failure"), first(f.cur.Failing))
	}
	if c.action == loop.ActionEscalate {
		tried := "a fresh attempt"
		if s := simplifiesSinceBest(f); s > 1 {
			tried = plural(s, "fresh attempt")
		}
		return fmt.Sprintf("no progress for %s%s; %s from the best checkpoint did not help", plural(n, "iteration"), still, tried)
	}
	next := "a fresh attempt from the best checkpoint"
	switch c.action {
	case loop.ActionSimplify:
	case loop.ActionExpand:
		next = "the files and symbols the errors name go into the prompt"
	default:
		return c.reason
	}
	return fmt.Sprintf("stuck for %s%s: %s", plural(n, "iteration"), still, next)
}

// stalled is how many iterations in a row (the present one included) did not
// raise the best quality: all of them when none ran the checks.
func stalled(f *facts) int {
	best, at := 0.0, -1
	for i, p := range f.seq {
		if p.Quality >= best+f.p.Epsilon {
			best, at = p.Quality, i
		}
	}
	return len(f.seq) - 1 - at
}
