package app

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/runname"
	"github.com/agentloop/agentloop/internal/state"
)

// SteerResult is what [Guide] or [Stop] did to a run.
type SteerResult struct {
	Name      string
	Status    state.Status // the run's status as its state file says (running, interrupted, …)
	Running   bool         // a live process runs it
	PID       int          // that process
	Iteration int          // the iteration of its segment it is in (running) or stopped after
	ID        string       // the queued guidance's ID
}

// Guide queues guidance for the run called name in the state folder stateDir.
// A running loop takes it at its next iteration boundary: every later prompt
// carries it and the run's history records it ("guidance applied in
// iteration 4"). An interrupted or aborted run takes it when it is resumed.
// An escalated run waits for its answer instead (resume --guidance), and a run
// that ended has nothing left to guide: both are usage errors.
func Guide(stateDir, name, text, by string, now time.Time) (SteerResult, error) {
	if strings.TrimSpace(text) == "" {
		return SteerResult{}, &UsageError{Err: errors.New("guide: the guidance is empty; say what the loop should do, as agentloop guide NAME \"use the v2 API\"")}
	}
	store := state.Store{Root: stateDir}
	st, err := findState(store, name)
	if err != nil {
		return SteerResult{}, err
	}
	out := SteerResult{Name: name, Status: st.Status, Iteration: st.Iteration}
	owner, live := store.Owner(name)
	out.Running, out.PID = live && st.Status == state.StatusRunning, owner.PID
	switch {
	case out.Running, st.Status == state.StatusInterrupted, st.Status == state.StatusAborted,
		st.Status == state.StatusRunning: // its process died: resume takes it
	case st.Status == state.StatusEscalated:
		return out, &UsageError{Err: fmt.Errorf("run %s escalated and waits for your answer to its question (agentloop inbox): answer with agentloop resume %s --guidance %q", name, name, text)}
	default:
		return out, &UsageError{Err: fmt.Errorf("run %s ended %s: no loop will read guidance; start a new run with the guidance in its task or context", name, st.Status)}
	}
	g, err := store.QueueGuidance(name, st.RunID, state.Steer{Text: text, At: now, By: by})
	out.ID = g.ID
	return out, err
}

// Stop ends the running loop called name in the state folder stateDir: after
// its current iteration (the loop takes the request at its next iteration
// boundary and ends interrupted, to be resumed), or at once (now: SIGINT to its
// process, as Ctrl-C in its terminal). A run no live process runs is an error.
func Stop(stateDir, name string, now bool, by string, at time.Time) (SteerResult, error) {
	store := state.Store{Root: stateDir}
	st, err := findState(store, name)
	if err != nil {
		return SteerResult{}, err
	}
	out := SteerResult{Name: name, Status: st.Status, Iteration: st.Iteration}
	owner, live := store.Owner(name)
	if !live || st.Status != state.StatusRunning {
		why := string(st.Status)
		if st.Status == state.StatusRunning {
			why = "interrupted: its process is gone"
		}
		return out, fmt.Errorf("run %s is not running (%s); nothing to stop", name, why)
	}
	out.Running, out.PID = true, owner.PID
	if !now {
		return out, store.QueueStop(name, st.RunID, owner.PID, state.StopRequest{At: at, By: by})
	}
	if host, _ := os.Hostname(); owner.Host != host {
		return out, fmt.Errorf("run %s runs on %s, not on this host (%s): stop it there, or without --now after its current iteration", name, owner.Host, host)
	}
	if err := proc.Interrupt(owner.PID); err != nil {
		return out, fmt.Errorf("interrupt run %s (pid %d): %w", name, owner.PID, err)
	}
	return out, nil
}

// findState is the state of the run called name, without its history, read
// without moving anything.
func findState(store state.Store, name string) (*state.State, error) {
	if err := runname.Check(name); err != nil {
		return nil, &UsageError{Err: fmt.Errorf("run name %q: %w", name, err)}
	}
	states, err := store.List()
	for _, st := range states {
		if st.Name == name {
			return st, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read runs in %s: %w", store.Root, err)
	}
	return nil, fmt.Errorf("no run named %q in %s; 'agentloop status' lists them", name, store.Root)
}
