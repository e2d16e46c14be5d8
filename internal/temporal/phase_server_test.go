//go:build unix

package temporal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// TestRealServerStepTellsItsPhase: on a real dev server, while a step's
// agent is at work (blocked until the test lets it go), the run's view a
// client reads says the iteration and the phase the step's heartbeat told
// the server, as a local run's live file says them; once the run ended, no
// step is under way and the view says none.
func TestRealServerStepTellsItsPhase(t *testing.T) {
	_, c := newDevServer(t)
	defer c.Close()
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	a := shAgent(t, `cat >/dev/null; cat "$GO" >/dev/null`)
	a.Env = map[string]string{"GO": fifo}
	s := &Steps{Log: testLogger(), Plan: planIn(a)}
	queue := "phase-" + fmt.Sprint(time.Now().UnixNano())
	w := NewWorker(t.Context(), c, Server{TaskQueue: queue}, s, "", time.Second)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	in := input(budget.Limits{MaxIterations: 1, FailureThreshold: 3}, false)
	in.Run.Name, in.Run.WorkDir, in.HeartbeatTimeout = "phase", t.TempDir(), 3*time.Second
	if err := Start(t.Context(), c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, c, "phase", func(v View) bool { return v.Live.Phase != "" })
	if v.Live != (state.LiveStatus{Iteration: 1, Phase: "agent"}) {
		t.Errorf("the view while the agent works: %+v, want iteration 1, phase agent", v.Live)
	}
	// The agent reads the fifo's end once it is opened for writing.
	if err := os.WriteFile(fifo, nil, 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var out loop.Outcome
	if err := c.GetWorkflow(ctx, WorkflowID("phase"), "").Get(ctx, &out); err != nil {
		t.Fatalf("the run did not end: %v", err)
	}
	if v := waitView(t, c, "phase", func(View) bool { return true }); v.Live != (state.LiveStatus{}) {
		t.Errorf("the view of the run ended %s: %+v, want no step under way", out.Status, v.Live)
	}
}
