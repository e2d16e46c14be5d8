package app

import (
	"slices"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
)

// Look reads the view of the state folder stateDir at now. What cannot be read
// is left out and named in the error, next to the rest.
func Look(stateDir string, now time.Time) (report.View, error) {
	store := state.Store{Root: stateDir}
	states, err := store.List()
	v := report.View{At: now}
	for _, st := range states {
		row := report.WatchRow{StatusRow: report.StatusRows([]*state.State{st}, now)[0]}
		if st.Status == state.StatusRunning {
			if _, live := store.Owner(st.Name); !live {
				row.Status = state.StatusInterrupted
				row.Reason = "its process is gone; continue with: agentloop resume " + st.Name
			} else if ls, lerr := state.ReadLive(store.LivePath(st.Name)); lerr == nil {
				row.Live = &ls
			}
		}
		v.Runs = append(v.Runs, row)
	}
	items, werr := Waiting(stateDir)
	v.NeedsYou = items
	if err == nil {
		err = werr
	}
	return v, err
}

// Remote is the view of runs an engine's server knows (their states, what
// each one's step under way is doing, in lives, by the states' order, and
// what waits for a person): a running one that waits is in the phase
// "waiting for you" since it asked.
func Remote(states []*state.State, lives []state.LiveStatus, needs []decision.Waiting, now time.Time) report.View {
	v := report.View{At: now, NeedsYou: needs}
	for i, row := range report.StatusRows(states, now) {
		r := report.WatchRow{StatusRow: row}
		if w := slices.IndexFunc(needs, func(n decision.Waiting) bool { return n.Run == row.Name }); w >= 0 && row.Status == state.StatusRunning {
			r.Live = &state.LiveStatus{Iteration: row.Iteration, Phase: "waiting for you", Since: needs[w].Since}
		} else if row.Status == state.StatusRunning && i < len(lives) && lives[i].Phase != "" {
			r.Live = &lives[i]
		}
		v.Runs = append(v.Runs, r)
	}
	return v
}
