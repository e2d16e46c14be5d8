package state_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/state"
)

func TestStatusEnded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    state.Status
		want bool
	}{
		{"", false},
		{state.StatusRunning, false},
		{state.StatusSucceeded, true},
		{state.StatusCompleted, true},
		{state.StatusAborted, true},
		{state.StatusEscalated, true},
		{state.StatusInterrupted, true},
	} {
		if got := tc.s.Ended(); got != tc.want {
			t.Errorf("%q.Ended() = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	valid := func() *state.State {
		return &state.State{Version: state.StateVersion, Name: "build", Status: state.StatusRunning}
	}
	tests := []struct {
		name   string
		change func(*state.State)
		want   string // "" when valid
	}{
		{"a fresh state", func(*state.State) {}, ""},
		{"the oldest version", func(s *state.State) { s.Version = 1 }, ""},
		{"counters at zero", func(s *state.State) { s.Iteration, s.ConsecutiveFailures, s.MaxIterations = 0, 0, 0 }, ""},
		{"every known status", func(s *state.State) { s.Status = state.StatusInterrupted }, ""},
		{"version 0", func(s *state.State) { s.Version = 0 }, "version 0 is not one this build reads"},
		{"a newer version", func(s *state.State) { s.Version = state.StateVersion + 1 }, "is not one this build reads"},
		{"no name", func(s *state.State) { s.Name = "" }, "name is empty"},
		{"negative iteration", func(s *state.State) { s.Iteration = -1 }, "negative counter"},
		{"negative failures", func(s *state.State) { s.ConsecutiveFailures = -1 }, "negative counter"},
		{"negative limit", func(s *state.State) { s.MaxIterations = -1 }, "negative counter"},
		{"unknown status", func(s *state.State) { s.Status = "paused" }, `unknown status "paused"`},
		{"no status", func(s *state.State) { s.Status = "" }, `unknown status ""`},
	}
	for _, tc := range tests {
		s := valid()
		tc.change(s)
		err := s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: Validate() = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	for _, st := range []state.Status{state.StatusRunning, state.StatusSucceeded, state.StatusCompleted, state.StatusAborted, state.StatusEscalated, state.StatusInterrupted} {
		s := valid()
		s.Status = st
		if err := s.Validate(); err != nil {
			t.Errorf("status %s: %v", st, err)
		}
	}
}

// A human's answer starts the counters again and a fresh attempt; what the
// run spent stays.
func TestApplyGuidance(t *testing.T) {
	t.Parallel()
	st := &state.State{Iteration: 5, TotalIterations: 12, ConsecutiveFailures: 3, Next: state.Next{Strategy: "expand", Attempt: 2, Focus: "x"}}
	st.Spend.Wall = 900
	state.ApplyGuidance(st, state.Guidance{Text: "use the v2 API"})
	if st.Guidance != "use the v2 API" || st.Iteration != 0 || st.ConsecutiveFailures != 0 {
		t.Errorf("after guidance: guidance %q, iteration %d, failures %d", st.Guidance, st.Iteration, st.ConsecutiveFailures)
	}
	if want := (state.Next{Strategy: "refine", Attempt: 3}); st.Next.Strategy != want.Strategy || st.Next.Attempt != want.Attempt || st.Next.Focus != "" {
		t.Errorf("next = %+v, want %+v", st.Next, want)
	}
	if st.TotalIterations != 12 || st.Spend.Wall != 900 {
		t.Errorf("spend lost: %d iterations, %d ms", st.TotalIterations, st.Spend.Wall)
	}
}

// A run's elapsed time is the time its steps took; while it runs, the time
// since the last step counted or since this session started, whichever is later.
func TestElapsed(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := time.Second
	tests := []struct {
		name      string
		status    state.Status
		counted   time.Time
		sessionAt time.Time // zero: no session
		now       time.Time
		want      time.Duration
	}{
		{"ended", state.StatusSucceeded, t0, time.Time{}, t0.Add(5 * s), 10 * s},
		{"no clock", state.StatusRunning, t0, time.Time{}, time.Time{}, 10 * s},
		{"running since the last step", state.StatusRunning, t0, time.Time{}, t0.Add(5 * s), 15 * s},
		{"a session started after the last step", state.StatusRunning, t0, t0.Add(2 * s), t0.Add(5 * s), 13 * s},
		{"a session started before the last step", state.StatusRunning, t0, t0.Add(-s), t0.Add(5 * s), 15 * s},
		{"nothing counted yet", state.StatusRunning, time.Time{}, time.Time{}, t0, 10 * s},
		{"nothing counted, a session started", state.StatusRunning, time.Time{}, t0, t0.Add(4 * s), 14 * s},
		{"a clock behind the last step", state.StatusRunning, t0, time.Time{}, t0.Add(-s), 10 * s},
	}
	for _, tc := range tests {
		st := &state.State{Status: tc.status}
		st.Spend.Wall = 10_000
		st.Spend.CountedTo = tc.counted
		if !tc.sessionAt.IsZero() {
			st.Sessions = []state.Session{{StartedAt: t0.Add(-time.Hour)}, {StartedAt: tc.sessionAt}}
		}
		if got := st.Elapsed(tc.now); got != tc.want {
			t.Errorf("%s: Elapsed = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestStateResumed(t *testing.T) {
	t.Parallel()
	one := []state.Session{{}}
	for _, tc := range []struct {
		name string
		st   state.State
		want bool
	}{
		{"new run, its session", state.State{Sessions: one}, false},
		{"new run, no session recorded", state.State{}, false},
		{"stopped before any attempt", state.State{Sessions: []state.Session{{}, {}}}, true},
		{"baseline known", state.State{Sessions: one, BaselineDone: true}, true},
		{"an attempt made", state.State{Sessions: one, Attempts: 1}, true},
	} {
		if got := tc.st.Resumed(); got != tc.want {
			t.Errorf("%s: Resumed() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
