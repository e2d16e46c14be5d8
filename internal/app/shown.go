package app

import (
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/state"
)

// AsItStands makes a run's saved state say where the run stands, for status:
// a running run whose process is gone is interrupted (said, not saved: the
// next run or resume recovers it); a live one is at the agent attempt it runs
// (its iteration and run-wide number), which the state records only once the
// attempt ends.
func AsItStands(store *state.Store, st *state.State) {
	if st.Status != state.StatusRunning {
		return
	}
	if !store.Owned(st.Name) {
		st.Status = state.StatusInterrupted
		st.Reason = "its process is gone; continue with: agentloop resume " + st.Name
		return
	}
	if seq, it, ok := engine.AttemptInProgress(store.RunDir(st.Name, st.RunID)); ok && seq > st.Attempts {
		st.Attempts, st.Iteration = seq, it
	}
}
