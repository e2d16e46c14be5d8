package budget_test

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/budget"
)

func ExampleCheck() {
	per := []budget.Cost{
		{CostUSD: 4, CostKnown: true},
		{CostUSD: 6, CostKnown: true},
	}
	v := budget.Check(budget.Limits{MaxCostUSD: 15}, budget.Total(per), per)
	fmt.Println(v.Stop(), v.CannotAfford)
	fmt.Println(v.Reason)
	// Output:
	// true [cost]
	// cost: $5.00 left of $15.00, an iteration takes about $6.00 (mean of 2 × 1.2)
}
