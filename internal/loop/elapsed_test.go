package loop

import (
	"context"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// Elapsed is the one definition of a run's elapsed time: the counted wall
// time, plus, while running, the time since the last step counted (or since
// the session started, when later). Time between sessions does not count.
func TestElapsed(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	tests := []struct {
		name string
		st   state.State
		now  time.Time
		want time.Duration
	}{
		{"ended: the counted time", state.State{Status: state.StatusInterrupted, Spend: state.Spend{Wall: 13_500, CountedTo: at(14)}}, at(600), 13500 * time.Millisecond},
		{"running, mid-iteration", state.State{Status: state.StatusRunning, Spend: state.Spend{Wall: 30_000, CountedTo: at(30)},
			Sessions: []state.Session{{StartedAt: t0}}}, at(45), 45 * time.Second},
		{"running, a new session after a day's wait", state.State{Status: state.StatusRunning, Spend: state.Spend{Wall: 30_000, CountedTo: at(30)},
			Sessions: []state.Session{{StartedAt: t0, EndedAt: at(31)}, {StartedAt: at(86400)}}}, at(86410), 40 * time.Second},
		{"running, nothing counted yet", state.State{Status: state.StatusRunning, Sessions: []state.Session{{StartedAt: t0}}}, at(5), 5 * time.Second},
		{"running, no clock given", state.State{Status: state.StatusRunning, Spend: state.Spend{Wall: 2000}, Sessions: []state.Session{{StartedAt: t0}}}, time.Time{}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.st.Elapsed(tt.now); got != tt.want {
				t.Errorf("Elapsed = %v, want %v", got, tt.want)
			}
		})
	}
}

// An attempt cut short (Ctrl-C) counts its time and the agent's known usage;
// it is recorded as interrupted with the checkpoints it started from and
// left, to be undone on resume, where the iteration runs again as a new
// attempt. One that never started is recorded with no time.
func TestCutShortCounts(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	st := &state.State{Status: state.StatusRunning, Segment: 1, Spend: state.Spend{Wall: 500, CountedTo: t0}}
	r := &runner{st: st}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r.cutShort(ctx, 1, 4, state.StepResult{Started: t0, Finished: t0.Add(13 * time.Second), Start: "s4", Checkpoint: "c4"}, context.Canceled)
	if st.Spend.Wall != 13_500 || !st.Spend.CountedTo.Equal(t0.Add(13*time.Second)) || len(st.Interrupted) != 1 || st.Interrupted[0].Duration != 13_000 {
		t.Errorf("after a cut iteration: wall %d, counted to %v, interrupted %+v", st.Spend.Wall, st.Spend.CountedTo, st.Interrupted)
	}
	if c := st.Interrupted[0]; c.Seq != 4 || c.Start != "s4" || c.Cut != "c4" || c.Reason != "interrupted" {
		t.Errorf("cut = %+v, want attempt 4 from s4 leaving c4, interrupted", c)
	}
	if u := st.Undo; u == nil || *u != (state.Undo{Seq: 4, Start: "s4", Cut: "c4"}) || st.Tree != "c4" {
		t.Errorf("undo = %+v, tree %q: want attempt 4 to undo, the tree at c4", u, st.Tree)
	}
	r.cutShort(ctx, 2, 5, state.StepResult{}, context.Canceled) // a step that never started counts no time
	if st.Spend.Wall != 13_500 || len(st.Interrupted) != 2 || st.Interrupted[1].Duration != 0 || st.Undo.Seq != 4 {
		t.Errorf("a step without times: wall %d, interrupted %+v, undo %+v", st.Spend.Wall, st.Interrupted, st.Undo)
	}
}

// An iteration that paused until an account's usage limit reset counts its
// time less the pause: the pause is not billed (kept apart, as Paused), and
// the wall-time budget judges the billed time alone. A pause longer than the
// step (a clock that jumped) takes no more than the step's time.
func TestPauseNotBilled(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name            string
		res             state.StepResult
		wall, paused    state.Millis
		cutWall, cutDur state.Millis
	}{
		{"no pause", state.StepResult{Started: t0, Finished: t0.Add(20 * time.Second)}, 20_000, 0, 20_000, 20_000},
		{"a 5 min pause in a 5 min 20 s iteration", state.StepResult{Started: t0, Finished: t0.Add(320 * time.Second), Waited: 301 * time.Second, Paused: 300 * time.Second}, 20_000, 300_000, 20_000, 20_000},
		{"a pause longer than the step", state.StepResult{Started: t0, Finished: t0.Add(10 * time.Second), Paused: time.Minute}, 0, 10_000, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var st state.State
			st.Fold(evidence.Iteration{N: 1, Started: tt.res.Started, Finished: tt.res.Finished}, 1, tt.res, state.Decision{})
			if st.Spend.Wall != tt.wall || st.Spend.Paused != tt.paused {
				t.Errorf("folded: wall %d, paused %d; want %d, %d", st.Spend.Wall, st.Spend.Paused, tt.wall, tt.paused)
			}
			cut := &state.State{Status: state.StatusRunning}
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			(&runner{st: cut}).cutShort(ctx, 1, 1, tt.res, context.Canceled)
			if cut.Spend.Wall != tt.cutWall || cut.Interrupted[0].Duration != tt.cutDur {
				t.Errorf("cut short: wall %d, attempt's duration %d; want %d, %d", cut.Spend.Wall, cut.Interrupted[0].Duration, tt.cutWall, tt.cutDur)
			}
		})
	}
}
