package graph

import (
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
)

// HasBudget reports whether a graph's budget b limits anything: a cost or a
// number of tokens over every task.
func HasBudget(b budget.Limits) bool { return b.MaxCostUSD > 0 || b.MaxTokens > 0 }

// GlobalBudget is whether a graph's budget b is spent ([budget.Exhausted]), and
// why; a graph without a cost or token budget never is.
func GlobalBudget(b budget.Limits, spent budget.Spent) (exhausted bool, reason string) {
	if !HasBudget(b) {
		return false, ""
	}
	if over, why := budget.Exhausted(b, spent); over {
		return true, "global budget: " + why
	}
	return false, ""
}

// CapToGraph is a task's own limits l bounded by what is left of its graph's
// budget b once the other tasks' spend is counted: all is what every task of
// the graph spent so far (the running ones' included), own what this one did.
func CapToGraph(l, b budget.Limits, all budget.Spent, own evidence.Usage) budget.Limits {
	return l.Within(b, all.Minus(own.Spent(0, 0)))
}
