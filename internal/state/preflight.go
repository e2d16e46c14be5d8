package state

import (
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
)

// BudgetStatus is what the run of st has spent, over every session, with the
// iteration just finished when ev is not nil: the one budget status the
// decider judges, of the run's one spend ([Spend.Total]: agent and reviewer).
func BudgetStatus(st *State, ev *evidence.Iteration) budget.Status {
	costs := make([]budget.Cost, 0, len(st.History)+1)
	for _, h := range st.History {
		costs = append(costs, h.Usage.Add(h.ReviewUsage).Cost(h.Duration.Duration()))
	}
	usage, wall, iters := st.Spend.Total(), st.Spend.Wall.Duration(), st.Iteration
	if ev != nil {
		u := ev.Spend()
		costs = append(costs, u.Cost(ev.Duration()))
		usage, wall, iters = usage.Add(u), wall+ev.Duration(), ev.N
	}
	return budget.Status{Spent: usage.Spent(wall, iters), PerIteration: costs}
}
