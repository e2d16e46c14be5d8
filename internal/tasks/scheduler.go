package tasks

import (
	"context"
	"errors"
	"fmt"
)

// ErrBudgetExhausted is returned by [Scheduler.Execute] when the global budget
// stopped tasks from starting.
var ErrBudgetExhausted = errors.New("tasks: global budget exhausted")

// Scheduler runs a task graph: ready tasks, up to Parallel at once, in
// dependency order.
type Scheduler struct {
	// Parallel is how many tasks may run at once; below 1 means 1.
	Parallel int
	// Run runs one task's loop. Its Outcome.State says how the task ended; an
	// error counts as a failed task (or an interrupted one once ctx is cancelled).
	Run func(ctx context.Context, t Task) (Outcome, error)
	// Budget, when set, is asked before each task starts; exhausted stops every
	// task not yet started (they end skipped).
	Budget func() (exhausted bool, reason string)
	// Started and Finished, when set, observe the schedule (progress output).
	// They are called from the scheduling goroutine, never concurrently.
	Started  func(t Task)
	Finished func(t Task, o Outcome)
}

type finished struct {
	i   int
	o   Outcome
	err error
}

// Execute runs the graph and returns every task's outcome. Tasks done in prior
// (a resumed run) or marked Done are not run again and keep their completion
// order. A task that fails or escalates blocks only its dependents. When ctx is
// cancelled no task starts any more and Execute waits for the running ones to
// return, then returns ctx's error; when the budget runs out it returns
// [ErrBudgetExhausted] after the running tasks return.
func (s *Scheduler) Execute(ctx context.Context, g Graph, prior map[string]Outcome) (map[string]Outcome, error) {
	if s.Run == nil {
		return nil, errors.New("execute tasks: the scheduler has no Run function")
	}
	if g.index == nil {
		var err error
		if g, err = NewGraph(g.Tasks); err != nil {
			return nil, fmt.Errorf("execute tasks: %w", err)
		}
	}
	parallel := max(s.Parallel, 1)
	n := len(g.Tasks)
	out := make(map[string]Outcome, n)
	state := make([]State, n)
	waiting := make([]int, n) // dependencies not yet done
	dependents := make([][]int, n)
	seq := 0
	for i, t := range g.Tasks {
		state[i] = StatePending
		if o, ok := prior[t.ID]; ok && o.State.Done() {
			state[i] = o.State
			out[t.ID] = o
			seq = max(seq, o.Seq)
		} else if t.Done {
			state[i] = StateSucceeded
			out[t.ID] = Outcome{State: StateSucceeded, Reason: "already done"}
		}
		for _, d := range t.DependsOn {
			dependents[g.index[d]] = append(dependents[g.index[d]], i)
		}
	}
	for i, t := range g.Tasks {
		for _, d := range t.DependsOn {
			if !state[g.index[d]].Done() {
				waiting[i]++
			}
		}
	}
	var ready []int // pending tasks with every dependency done, in file order
	for i := range g.Tasks {
		if state[i] == StatePending && waiting[i] == 0 {
			ready = append(ready, i)
		}
	}
	var block func(i int, why string)
	block = func(i int, why string) {
		for _, d := range dependents[i] {
			if state[d] == StatePending {
				state[d] = StateBlocked
				out[g.Tasks[d].ID] = Outcome{State: StateBlocked, Reason: why}
				block(d, why)
			}
		}
	}
	done := make(chan finished)
	running := 0
	budgetReason := ""
	for {
		for running < parallel && len(ready) > 0 && ctx.Err() == nil && budgetReason == "" {
			if s.Budget != nil {
				if exhausted, why := s.Budget(); exhausted {
					budgetReason = why
					if budgetReason == "" {
						budgetReason = "global budget exhausted"
					}
					break
				}
			}
			i := ready[0]
			ready = ready[1:]
			state[i] = "running"
			running++
			t := g.Tasks[i]
			if s.Started != nil {
				s.Started(t)
			}
			go func() {
				o, err := s.Run(ctx, t)
				done <- finished{i: i, o: o, err: err}
			}()
		}
		if running == 0 {
			break
		}
		f := <-done
		running--
		t := g.Tasks[f.i]
		o := normalize(ctx, f.o, f.err)
		if o.State.Done() {
			seq++
			o.Seq = seq
			for _, d := range dependents[f.i] {
				if waiting[d]--; waiting[d] == 0 && state[d] == StatePending {
					ready = insertSorted(ready, d)
				}
			}
		} else if o.State != StateInterrupted {
			block(f.i, fmt.Sprintf("dependency %s %s", t.ID, o.State))
		}
		state[f.i] = o.State
		out[t.ID] = o
		if s.Finished != nil {
			s.Finished(t, o)
		}
	}
	for i, t := range g.Tasks {
		if _, ok := out[t.ID]; ok {
			continue
		}
		switch {
		case budgetReason != "":
			out[t.ID] = Outcome{State: StateSkipped, Reason: budgetReason}
		default:
			out[t.ID] = Outcome{State: StatePending, Reason: "not started"}
		}
		state[i] = out[t.ID].State
	}
	switch {
	case ctx.Err() != nil:
		return out, fmt.Errorf("execute tasks: %w", ctx.Err())
	case budgetReason != "":
		return out, fmt.Errorf("%w: %s", ErrBudgetExhausted, budgetReason)
	}
	return out, nil
}

// normalize turns Run's result into a final outcome.
func normalize(ctx context.Context, o Outcome, err error) Outcome {
	switch {
	case err != nil && ctx.Err() != nil:
		o.State, o.Reason = StateInterrupted, err.Error()
	case err != nil:
		o.State, o.Reason = StateFailed, err.Error()
	case o.State == "" || o.State == StatePending || o.State == StateBlocked || o.State == StateSkipped:
		o.Reason = fmt.Sprintf("run returned state %q, not a final one", o.State)
		o.State = StateFailed
	}
	o.Seq = 0
	return o
}

// insertSorted inserts i into the ascending slice s (ready tasks keep file order).
func insertSorted(s []int, i int) []int {
	k := len(s)
	for k > 0 && s[k-1] > i {
		k--
	}
	s = append(s, 0)
	copy(s[k+1:], s[k:])
	s[k] = i
	return s
}
