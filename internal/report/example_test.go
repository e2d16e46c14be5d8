package report_test

import (
	"os"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
)

func ExampleStatusTable() {
	start := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	states := []*state.State{
		{Name: "build", Status: state.StatusRunning, Iteration: 2, MaxIterations: 5, StartedAt: start,
			History:  []state.Record{{N: 1, Decision: "refine"}, {N: 2, Decision: "refine"}},
			Sessions: []state.Session{{StartedAt: start}},
			// 2m30s counted up to the end of iteration 2; the third runs since.
			Spend: state.Spend{Usage: evidence.Usage{InputTokens: 41000, OutputTokens: 5200, TokensKnown: true, CostUSD: 0.62, CostKnown: true},
				Wall: 150_000, CountedTo: start.Add(150 * time.Second)}},
		{Name: "docs", Status: state.StatusSucceeded, Iteration: 1, MaxIterations: 3, StartedAt: start,
			LastIterationAt: start.Add(40 * time.Second), History: []state.Record{{N: 1, Decision: "proceed"}},
			Spend: state.Spend{Wall: 40_000}},
	}
	_ = report.StatusTable(os.Stdout, report.StatusRows(states, start.Add(3*time.Minute)), false)
	// Output:
	// NAME   STATUS     ITERATION  LAST DECISION  TOKENS   COST     ELAPSED
	// build  running    2/5        refine         46,200   $0.62    3m00s
	// docs   succeeded  1/3        proceed        unknown  unknown  40.0s
}
