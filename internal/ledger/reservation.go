package ledger

import "github.com/agentloop/agentloop/internal/budget"

// Reservation is what an iteration asks to hold before it starts.
type Reservation struct {
	ID     string // one iteration's attempt, unique on the machine
	Run    string // which run or task, for people
	Graph  string // the task graph of the task, "" none
	Key    budget.Key
	USD    float64
	Tokens int64
	// First is what the iteration reserves when USD is 0 (the loop has
	// settled no iteration of its own) and the ledger holds no iteration of
	// its provider: [FirstUSD], which the caller works out (so that the
	// figure travels with the reservation; 0 reserves nothing, as a ledger
	// workflow's history of an older build did).
	First float64
}

// DefaultFirstUSD is the most a first iteration reserves by default when the
// ledger holds no iteration of its provider ([FirstUSD]).
const DefaultFirstUSD = 0.50

// firstShare is the part of the tightest cap a first iteration reserves by
// default: ten fresh loops can start under any cap.
const firstShare = 10

// FirstUSD is what a first iteration charged to k reserves when the ledger
// holds no settled iteration of its provider (no mean to predict from):
// configured (budgets: first_iteration_usd) when given, else a tenth of the
// tightest cost limit, hard or soft, of the caps over k, at most
// [DefaultFirstUSD] (an agent CLI's iteration costs tens of cents to a few
// dollars: half a dollar holds a typical one back instead of nothing, and a
// tenth of a small cap still lets ten loops start under it).
func FirstUSD(caps []Cap, k budget.Key, configured float64) float64 {
	if configured > 0 {
		return configured
	}
	first := DefaultFirstUSD
	for _, c := range caps {
		if !c.Matches(k) {
			continue
		}
		for _, limit := range []float64{c.MaxCostUSD, c.SoftCostUSD} {
			if limit > 0 {
				first = min(first, limit/firstShare)
			}
		}
	}
	return first
}
