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
	t   Task
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
	sch, err := NewSchedule(g, prior)
	if err != nil {
		return nil, fmt.Errorf("execute tasks: %w", err)
	}
	parallel := max(s.Parallel, 1)
	done := make(chan finished)
	for {
		for sch.Running() < parallel && sch.Ready() && ctx.Err() == nil && sch.Stopped() == "" {
			if s.Budget != nil {
				if exhausted, why := s.Budget(); exhausted {
					sch.Stop(why)
					break
				}
			}
			t := sch.Start()
			if s.Started != nil {
				s.Started(t)
			}
			go func() {
				o, err := s.Run(ctx, t)
				done <- finished{t: t, o: o, err: err}
			}()
		}
		if sch.Running() == 0 {
			break
		}
		f := <-done
		o := sch.Finish(f.t.ID, Settle(f.o, f.err, ctx.Err() != nil))
		if s.Finished != nil {
			s.Finished(f.t, o)
		}
	}
	out := sch.Outcomes()
	switch {
	case ctx.Err() != nil:
		return out, fmt.Errorf("execute tasks: %w", ctx.Err())
	case sch.Stopped() != "":
		return out, fmt.Errorf("%w: %s", ErrBudgetExhausted, sch.Stopped())
	}
	return out, nil
}

// Schedule is where a graph run stands: which tasks are ready, running, done
// or blocked, and the completion order of the done ones. It does no I/O and
// starts nothing: [Scheduler.Execute] drives it with goroutines, a workflow
// engine with its own deterministic primitives.
type Schedule struct {
	g          Graph
	out        map[string]Outcome
	state      []State
	waiting    []int // dependencies not yet done
	dependents [][]int
	ready      []int // pending tasks with every dependency done, in file order
	running    int
	seq        int
	stopped    string
}

// NewSchedule is the schedule of the graph g; tasks done in prior (a resumed
// run) or marked Done are not run again and keep their completion order.
func NewSchedule(g Graph, prior map[string]Outcome) (*Schedule, error) {
	if g.index == nil {
		var err error
		if g, err = NewGraph(g.Tasks); err != nil {
			return nil, err
		}
	}
	n := len(g.Tasks)
	s := &Schedule{g: g, out: make(map[string]Outcome, n), state: make([]State, n), waiting: make([]int, n), dependents: make([][]int, n)}
	for i, t := range g.Tasks {
		s.state[i] = StatePending
		if o, ok := prior[t.ID]; ok && o.State.Done() {
			s.state[i] = o.State
			s.out[t.ID] = o
			s.seq = max(s.seq, o.Seq)
		} else if t.Done {
			s.state[i] = StateSucceeded
			s.out[t.ID] = Outcome{State: StateSucceeded, Reason: "already done"}
		}
		for _, d := range t.DependsOn {
			s.dependents[g.index[d]] = append(s.dependents[g.index[d]], i)
		}
	}
	for i, t := range g.Tasks {
		for _, d := range t.DependsOn {
			if !s.state[g.index[d]].Done() {
				s.waiting[i]++
			}
		}
	}
	for i := range g.Tasks {
		if s.state[i] == StatePending && s.waiting[i] == 0 {
			s.ready = append(s.ready, i)
		}
	}
	return s, nil
}

// Ready reports whether a task can start.
func (s *Schedule) Ready() bool { return len(s.ready) > 0 }

// Running is how many tasks started and did not finish.
func (s *Schedule) Running() int { return s.running }

// Start takes the first ready task (in file order) and counts it as running;
// call it only when [Schedule.Ready].
func (s *Schedule) Start() Task {
	i := s.ready[0]
	s.ready = s.ready[1:]
	s.state[i] = stateRunning
	s.running++
	return s.g.Tasks[i]
}

// Stop keeps every task not yet started from starting: they end skipped for
// the reason (the global budget is spent).
func (s *Schedule) Stop(reason string) {
	if reason == "" {
		reason = "global budget exhausted"
	}
	s.stopped = reason
}

// Stopped is the reason given to [Schedule.Stop], or "".
func (s *Schedule) Stopped() string { return s.stopped }

// Finish records how the running task id ended (see [Settle]) and returns the
// outcome as recorded: a done task gets its completion order and readies its
// dependents; a failed or escalated one blocks them.
func (s *Schedule) Finish(id string, o Outcome) Outcome {
	i := s.g.index[id]
	s.running--
	if o.State.Done() {
		s.seq++
		o.Seq = s.seq
		for _, d := range s.dependents[i] {
			if s.waiting[d]--; s.waiting[d] == 0 && s.state[d] == StatePending {
				s.ready = insertSorted(s.ready, d)
			}
		}
	} else if o.State != StateInterrupted {
		s.block(i, fmt.Sprintf("dependency %s %s", id, o.State))
	}
	s.state[i] = o.State
	s.out[id] = o
	return o
}

func (s *Schedule) block(i int, why string) {
	for _, d := range s.dependents[i] {
		if s.state[d] == StatePending {
			s.state[d] = StateBlocked
			s.out[s.g.Tasks[d].ID] = Outcome{State: StateBlocked, Reason: why}
			s.block(d, why)
		}
	}
}

// Outcomes is the outcome of every task not running now: a task that never
// started is skipped when the schedule was stopped, else pending.
func (s *Schedule) Outcomes() map[string]Outcome {
	out := make(map[string]Outcome, len(s.g.Tasks))
	for i, t := range s.g.Tasks {
		if o, ok := s.out[t.ID]; ok {
			out[t.ID] = o
			continue
		}
		switch {
		case s.state[i] == stateRunning:
		case s.stopped != "":
			out[t.ID] = Outcome{State: StateSkipped, Reason: s.stopped}
		default:
			out[t.ID] = Outcome{State: StatePending, Reason: "not started"}
		}
	}
	return out
}

// stateRunning is a started task's state inside a schedule.
const stateRunning State = "running"

// Settle turns what running a task returned into a final outcome: an error is
// a failed task, or an interrupted one when the run was cancelled; a state that
// is not final is a failure.
func Settle(o Outcome, err error, cancelled bool) Outcome {
	switch {
	case err != nil && cancelled:
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
