package tasks_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/tasks"
)

func Example() {
	plan := []byte(`# Plan
- [ ] Add the users table (id: schema)
- [ ] REST endpoints (id: api) (after: schema)
- [ ] CLI flags (id: cli) (after: schema)
- [ ] End-to-end tests (id: e2e) (after: api, cli)
`)
	ts, err := tasks.ParseMarkdown("PLAN.md", plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	layers, _ := tasks.Order(ts)
	fmt.Println(layers)

	g, _ := tasks.NewGraph(ts)
	s := &tasks.Scheduler{Parallel: 2, Run: func(ctx context.Context, t tasks.Task) (tasks.Outcome, error) {
		if t.ID == "api" {
			return tasks.Outcome{State: tasks.StateEscalated, Reason: "security concern"}, nil
		}
		return tasks.Outcome{State: tasks.StateSucceeded}, nil
	}}
	out, _ := s.Execute(context.Background(), g, nil)
	for _, t := range ts {
		fmt.Println(strings.TrimSpace(t.ID + " " + string(out[t.ID].State) + " " + out[t.ID].Reason))
	}
	// Output:
	// [[schema] [api cli] [e2e]]
	// schema succeeded
	// api escalated security concern
	// cli succeeded
	// e2e blocked dependency api escalated
}
