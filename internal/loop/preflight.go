package loop

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
)

// preflight checks, before an iteration starts, whether the run may go on: the
// iteration limit and the budgets. It never starts an iteration that cannot be
// afforded (remaining < 1.2 × the mean cost of the iterations so far).
func (r *runner) preflight(ctx context.Context) (Outcome, bool) {
	st, spec := r.st, r.spec
	if spec.MaxIterations > 0 && st.Iteration >= spec.MaxIterations {
		if !spec.HasGates && !spec.HasReviewer {
			return Outcome{Status: StatusCompleted, Reason: fmt.Sprintf("max iterations reached (%d)", spec.MaxIterations)}, true
		}
		return Outcome{Status: StatusEscalated, Reason: fmt.Sprintf("max iterations reached (%d) with the goal not met", spec.MaxIterations)}, true
	}
	v := r.budgetVerdict()
	if v.Stop() {
		return Outcome{Status: StatusAborted, Reason: "budget: " + v.Reason}, true
	}
	if len(v.Soft) > 0 && !slices.Equal(v.Soft, r.warned) {
		r.warned = v.Soft
		r.emit(ctx, "warning", st.Iteration, map[string]any{"message": "budget: " + v.Reason})
	}
	return Outcome{}, false
}

// budgetVerdict judges what the run has spent, over every session, against its
// limits.
func (r *runner) budgetVerdict() budget.Verdict {
	st := r.st
	costs := make([]budget.Cost, 0, len(st.History))
	for _, h := range st.History {
		costs = append(costs, budget.CostOf(h.Usage, h.Duration.Duration()))
	}
	spent := budget.SpentFrom(st.Spend.Usage, st.Spend.Wall.Duration(), st.Iteration)
	return budget.Check(budget.Limits{MaxTokens: r.spec.MaxTokens, MaxCostUSD: r.spec.MaxCostUSD, MaxDuration: r.spec.MaxDuration}, spent, costs)
}

func (r *runner) budget(ev evidence.Iteration) BudgetStatus {
	st := r.st
	spent := st.Spend.Usage.Add(ev.Agent.Usage)
	wall := st.Spend.Wall.Duration() + ev.Duration()
	iters := st.Iteration
	if ev.N > 0 {
		iters = ev.N
	}
	return BudgetStatus{
		Spent: spent, Wall: wall, Iterations: iters, MaxIterations: r.spec.MaxIterations,
		MaxTokens: r.spec.MaxTokens, MaxCostUSD: r.spec.MaxCostUSD, MaxDuration: r.spec.MaxDuration,
	}
}
