// Package budget owns a run's limits and the arithmetic of its spend: [Limits]
// is the one type a user's limits live in (iterations, failure threshold,
// tokens, cost, wall time, iteration timeout), [Status] is what a run spent,
// and [Check] applies the budget rules as pure functions: whether a hard limit
// (tokens, cost, wall time) is crossed, whether the run cannot afford another
// iteration (remaining < 1.2 × the mean cost of an iteration so far), and which
// limits are past the 80 % warning mark. Unknown spend (a CLI that reports no
// tokens or cost) is never counted as zero: the verdict says which rules could
// not be checked.
//
// The decision engine (package decide) is the one caller of Check: it alone
// decides whether and why a run stops. A budget shared by several runs (a
// task graph's) is judged by [Exhausted], its hard limits only, before each
// run starts. Everyone else carries the limits and the verdict's [Remaining].
//
// Example:
//
//	v := budget.Check(budget.Limits{MaxCostUSD: 20}, spent, perIteration)
//	if v.Stop() {
//		// v.Reason says which limit and why
//	}
package budget
