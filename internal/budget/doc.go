// Package budget owns the budget rules of a run, as pure functions: whether a
// hard limit (tokens, cost, wall time, iterations) is crossed, whether the run
// cannot afford another iteration (remaining < 1.2 × the mean cost of an
// iteration so far), and which limits are past the 80 % warning mark. Unknown
// spend (a CLI that reports no tokens or cost) is never counted as zero: the
// verdict says which rules could not be checked.
//
// Example:
//
//	v := budget.Check(budget.Limits{MaxCostUSD: 20}, spent, perIteration)
//	if v.Stop() {
//		// v.Reason says which limit and why
//	}
package budget
