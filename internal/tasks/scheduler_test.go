package tasks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustGraph(t testing.TB, ts []Task) Graph {
	t.Helper()
	g, err := NewGraph(ts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func states(out map[string]Outcome) map[string]State {
	m := make(map[string]State, len(out))
	for id, o := range out {
		m[id] = o.State
	}
	return m
}

func TestSchedulerParallelismBound(t *testing.T) {
	t.Parallel()
	for _, parallel := range []int{1, 3, 8} {
		t.Run(fmt.Sprint(parallel), func(t *testing.T) {
			t.Parallel()
			var specs []string
			for i := range 40 {
				s := fmt.Sprintf("t%d", i)
				if i >= 10 {
					s += fmt.Sprintf(":t%d", i%10)
				}
				specs = append(specs, s)
			}
			// Each task holds its slot until the scheduler has once run `parallel`
			// tasks at the same time (ten independent tasks come first), so the
			// peak is reached whatever the timing, and an overshoot shows.
			var now, peak atomic.Int64
			full := make(chan struct{})
			var fullOnce sync.Once
			s := &Scheduler{Parallel: parallel, Run: func(ctx context.Context, task Task) (Outcome, error) {
				n := now.Add(1)
				defer now.Add(-1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				if n >= int64(parallel) {
					fullOnce.Do(func() { close(full) })
				}
				select {
				case <-full:
				case <-time.After(10 * time.Second):
					return Outcome{}, fmt.Errorf("%s: %d tasks never ran at once", task.ID, parallel)
				}
				return Outcome{State: StateSucceeded}, nil
			}}
			out, err := s.Execute(t.Context(), mustGraph(t, tasksOf(specs...)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if p := peak.Load(); p > int64(parallel) || p < 1 {
				t.Errorf("peak concurrency %d, want 1..%d", p, parallel)
			}
			if p := peak.Load(); p != int64(parallel) {
				t.Errorf("peak concurrency %d, want %d", p, parallel)
			}
			if len(CompletionOrder(out)) != 40 {
				t.Errorf("%d tasks in the completion order, want 40", len(CompletionOrder(out)))
			}
		})
	}
}

func TestSchedulerDependencyOrder(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	finished := map[string]bool{}
	g := mustGraph(t, tasksOf("a", "b:a", "c:a", "d:b,c", "e"))
	s := &Scheduler{Parallel: 4, Run: func(ctx context.Context, task Task) (Outcome, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, d := range task.DependsOn {
			if !finished[d] {
				return Outcome{}, fmt.Errorf("%s started before its dependency %s finished", task.ID, d)
			}
		}
		finished[task.ID] = true
		return Outcome{State: StateSucceeded}, nil
	}}
	out, err := s.Execute(t.Context(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for id, o := range out {
		if o.State != StateSucceeded {
			t.Errorf("%s: %s %s", id, o.State, o.Reason)
		}
	}
	order := CompletionOrder(out)
	pos := map[string]int{}
	for i, id := range order {
		pos[id] = i
	}
	if pos["a"] > pos["b"] || pos["b"] > pos["d"] || pos["c"] > pos["d"] {
		t.Errorf("completion order %v breaks dependencies", order)
	}
}

func TestSchedulerBlocksOnlyDependents(t *testing.T) {
	t.Parallel()
	g := mustGraph(t, tasksOf("a", "b:a", "c:b", "d", "e:d", "f:a,d", "g"))
	s := &Scheduler{Parallel: 2, Run: func(ctx context.Context, task Task) (Outcome, error) {
		switch task.ID {
		case "a":
			return Outcome{State: StateEscalated, Reason: "security"}, nil
		case "d":
			return Outcome{}, errors.New("agent not found")
		case "g":
			return Outcome{State: StateCompleted}, nil
		}
		return Outcome{State: StateSucceeded}, nil
	}}
	out, err := s.Execute(t.Context(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]State{"a": StateEscalated, "b": StateBlocked, "c": StateBlocked, "d": StateFailed,
		"e": StateBlocked, "f": StateBlocked, "g": StateCompleted}
	if diff := cmp.Diff(want, states(out)); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	if out["c"].Reason != "dependency a escalated" || out["d"].Reason != "agent not found" {
		t.Errorf("reasons: c=%q d=%q", out["c"].Reason, out["d"].Reason)
	}
}

func TestSchedulerResume(t *testing.T) {
	t.Parallel()
	ts := tasksOf("a", "b:a", "c:b", "d")
	ts[3].Done = true // a ticked Markdown item
	var ran []string
	var mu sync.Mutex
	s := &Scheduler{Parallel: 1, Run: func(ctx context.Context, task Task) (Outcome, error) {
		mu.Lock()
		ran = append(ran, task.ID)
		mu.Unlock()
		return Outcome{State: StateSucceeded}, nil
	}}
	prior := map[string]Outcome{"a": {State: StateSucceeded, Seq: 1}, "b": {State: StateEscalated}}
	out, err := s.Execute(t.Context(), mustGraph(t, ts), prior)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b", "c"}, ran); diff != "" {
		t.Errorf("ran (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, CompletionOrder(out)); diff != "" {
		t.Errorf("completion order continues the prior one (-want +got):\n%s", diff)
	}
	if out["d"].State != StateSucceeded {
		t.Errorf("done task d: %+v", out["d"])
	}
}

func TestSchedulerCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var started, returned atomic.Int64
	release := make(chan struct{})
	// A loop winds down only once Execute has returned, or after a while: a
	// scheduler that does not wait for its running loops returns first, and the
	// count below shows it whatever the timing.
	executed := make(chan struct{})
	s := &Scheduler{Parallel: 2, Run: func(ctx context.Context, task Task) (Outcome, error) {
		if started.Add(1) == 2 {
			cancel()
			close(release)
		}
		<-release
		<-ctx.Done()
		select {
		case <-executed:
		case <-time.After(100 * time.Millisecond):
		}
		returned.Add(1)
		return Outcome{}, ctx.Err()
	}}
	out, err := s.Execute(ctx, mustGraph(t, tasksOf("a", "b", "c", "d:a")), nil)
	close(executed)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute error = %v, want context.Canceled", err)
	}
	if started.Load() != 2 || returned.Load() != 2 {
		t.Errorf("started %d, returned %d: want 2 and 2 (no new start, running ones awaited)", started.Load(), returned.Load())
	}
	want := map[string]State{"a": StateInterrupted, "b": StateInterrupted, "c": StatePending, "d": StatePending}
	if diff := cmp.Diff(want, states(out)); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
}

func TestSchedulerBudget(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	s := &Scheduler{Parallel: 1,
		Run: func(ctx context.Context, task Task) (Outcome, error) {
			runs.Add(1)
			return Outcome{State: StateSucceeded}, nil
		},
		Budget: func() (bool, string) {
			if runs.Load() >= 2 {
				return true, "max_cost_usd 10 reached"
			}
			return false, ""
		}}
	out, err := s.Execute(t.Context(), mustGraph(t, tasksOf("a", "b", "c", "d:c")), nil)
	if !errors.Is(err, ErrBudgetExhausted) {
		t.Fatalf("Execute error = %v, want ErrBudgetExhausted", err)
	}
	want := map[string]State{"a": StateSucceeded, "b": StateSucceeded, "c": StateSkipped, "d": StateSkipped}
	if diff := cmp.Diff(want, states(out)); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	if out["c"].Reason != "max_cost_usd 10 reached" {
		t.Errorf("skip reason %q", out["c"].Reason)
	}
}

func TestSchedulerInvalid(t *testing.T) {
	t.Parallel()
	s := &Scheduler{Run: func(context.Context, Task) (Outcome, error) { return Outcome{}, nil }}
	if _, err := s.Execute(t.Context(), Graph{Tasks: tasksOf("a:b", "b:a")}, nil); err == nil {
		t.Error("Execute ran a cyclic graph")
	}
	out, err := s.Execute(t.Context(), Graph{Tasks: tasksOf("a")}, nil)
	if err != nil || out["a"].State != StateFailed {
		t.Errorf("a Run without a state must fail the task: %+v, %v", out["a"], err)
	}
	if _, err := (&Scheduler{}).Execute(t.Context(), Graph{}, nil); err == nil {
		t.Error("Execute without Run succeeded")
	}
}

func BenchmarkScheduler(b *testing.B) {
	var specs []string
	for i := range 200 {
		s := fmt.Sprintf("t%d", i)
		if i >= 20 {
			s += fmt.Sprintf(":t%d,t%d", i-20, i/2)
		}
		specs = append(specs, s)
	}
	g := mustGraph(b, tasksOf(specs...))
	s := &Scheduler{Parallel: 8, Run: func(context.Context, Task) (Outcome, error) {
		return Outcome{State: StateSucceeded}, nil
	}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Execute(b.Context(), g, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/200, "ns/task")
}
