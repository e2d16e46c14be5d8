package loop

import (
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
)

// preflight checks, before an iteration starts, whether the run may go on: the
// iteration limit and the budgets. It never starts an iteration that cannot be
// afforded (remaining < 1.2 × the mean cost of the iterations so far).
func (r *runner) preflight() (Outcome, bool) {
	st, spec := r.st, r.spec
	if spec.MaxIterations > 0 && st.Iteration >= spec.MaxIterations {
		if !spec.HasGates && !spec.HasReviewer {
			return Outcome{Status: StatusCompleted, Reason: fmt.Sprintf("max iterations reached (%d)", spec.MaxIterations)}, true
		}
		return Outcome{Status: StatusEscalated, Reason: fmt.Sprintf("max iterations reached (%d) with the goal not met", spec.MaxIterations)}, true
	}
	if v := CheckBudget(r.budget(evidence.Iteration{}), st.ElapsedPerIteration, st.History); v.Stop {
		return Outcome{Status: StatusAborted, Reason: v.Reason}, true
	}
	return Outcome{}, false
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

// BudgetVerdict says whether a budget stops the run, and warns at 80%.
type BudgetVerdict struct {
	Stop   bool
	Reason string
	Soft   []string // limits past 80%
}

// CheckBudget is the budget rule applied before each iteration: a hard limit
// reached stops the run, and so does a remainder smaller than 1.2 × the mean
// per-iteration spend.
func CheckBudget(b BudgetStatus, elapsed []Millis, hist []Record) BudgetVerdict {
	var v BudgetVerdict
	n := len(hist)
	check := func(name string, spent, limit, mean float64, known bool, format func(float64) string) {
		if limit <= 0 || v.Stop {
			return
		}
		if !known {
			return
		}
		switch {
		case spent >= limit:
			v.Stop, v.Reason = true, fmt.Sprintf("budget exhausted: %s %s of %s", name, format(spent), format(limit))
		case n > 0 && limit-spent < 1.2*mean:
			v.Stop, v.Reason = true, fmt.Sprintf("budget cannot afford another iteration: %s %s left, an iteration costs %s on average", name, format(limit-spent), format(mean))
		case spent >= 0.8*limit:
			v.Soft = append(v.Soft, fmt.Sprintf("%s %s of %s", name, format(spent), format(limit)))
		}
	}
	mean := func(total float64) float64 {
		if n == 0 {
			return 0
		}
		return total / float64(n)
	}
	var histTokens, histCost float64
	for _, h := range hist {
		histTokens += float64(h.Usage.TotalTokens())
		histCost += h.Usage.CostUSD
	}
	var wallHist float64
	for _, e := range elapsed {
		wallHist += float64(e)
	}
	check("tokens", float64(b.Spent.TotalTokens()), float64(b.MaxTokens), mean(histTokens), b.Spent.TokensKnown,
		func(f float64) string { return fmt.Sprintf("%.0f", f) })
	check("cost", b.Spent.CostUSD, b.MaxCostUSD, mean(histCost), b.Spent.CostKnown,
		func(f float64) string { return fmt.Sprintf("$%.2f", f) })
	check("time", float64(b.Wall.Milliseconds()), float64(b.MaxDuration.Milliseconds()), wallHist/float64(max(len(elapsed), 1)), true,
		func(f float64) string { return (time.Duration(f) * time.Millisecond).Round(time.Second).String() })
	return v
}
