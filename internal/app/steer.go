package app

import (
	"context"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/state"
)

// steered is the local engine of a session that people can steer from another
// terminal: what `agentloop guide` and `agentloop stop` queue for the run
// (see [state.Store.QueueGuidance]) reaches the loop at its next iteration
// boundary ([loop.Steerer]).
type steered struct {
	*engine.Local
	store       *state.Store
	name, runID string
	pid         int // this process: a stop addressed to another is dropped
	warnf       func(format string, args ...any)
}

// Steering implements [loop.Steerer].
func (e steered) Steering(context.Context) (state.Steering, error) {
	return e.store.Queued(e.name, e.runID, e.pid)
}

// Steered implements [loop.Steerer]: the entries the saved state holds leave
// the queue.
func (e steered) Steered(_ context.Context, ids []string, stopped bool) {
	if err := e.store.Dequeue(e.name, ids, stopped); err != nil {
		e.warnf("remove what the run took from its queue (%s): %v", e.store.QueueDir(e.name), err)
	}
}

// steerable is the session's engine that people can steer.
func (s *Session) steerable(env *engine.Local) steered {
	return steered{Local: env, store: s.store, name: s.p.Name, runID: s.st.RunID, pid: s.lock.Info.PID, warnf: s.screen.Warnf}
}
