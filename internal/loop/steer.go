package loop

import (
	"context"
	"fmt"

	"github.com/agentloop/agentloop/internal/state"
)

// Steerer is an [Env] a person can steer while the loop runs, from another
// terminal (agentloop guide, agentloop stop). At each iteration boundary Run
// asks it what was queued since the last one, applies it, saves the state and
// then tells it what was applied, so a queue forgets an entry only once the
// state that holds it is saved. An environment that cannot be steered does not
// implement it.
type Steerer interface {
	// Steering is what people queued for the run: guidance, oldest first, and
	// a stop after the current iteration (nil: none). An error is told and the
	// loop goes on.
	Steering(ctx context.Context) (state.Steering, error)
	// Steered is told the IDs of the guidance now kept in the saved state (or
	// found there already), and whether the stop asked for was obeyed.
	Steered(ctx context.Context, ids []string, stopped bool)
}

// steer applies what people queued for the run (see [Steerer]); done reports
// that the session ends (a stop was asked for).
func (r *runner) steer(ctx context.Context) (Outcome, bool, error) {
	s, ok := r.env.(Steerer)
	if !ok || ctx.Err() != nil {
		return Outcome{}, false, nil
	}
	sg, err := s.Steering(ctx)
	if err != nil {
		r.emit(ctx, r.st.Iteration, state.Warning{Message: "read what was queued for the run (agentloop guide, stop): " + err.Error()})
	}
	st := r.st
	var ids []string
	var applied []state.HandoffRecorded
	for _, g := range sg.Guidance {
		ids = append(ids, g.ID)
		if st.HasHandoff(g.ID) {
			continue // applied before a crash, its queue entry left behind
		}
		applied = append(applied, state.AddHandoff(st, state.Handoff{Kind: state.HandoffGuide, ID: g.ID, At: g.At, By: g.By, Text: g.Text, Iteration: st.Iteration + 1, Checkpoint: st.Tree}))
		st.Steer = joinGuidance(st.Steer, g.Text)
	}
	if len(applied) > 0 {
		if err := r.save(ctx); err != nil {
			out, err := r.unsaved(ctx, err)
			return out, true, err
		}
		for _, h := range applied {
			r.emit(ctx, st.Iteration+1, h)
		}
	}
	if sg.Stop == nil {
		if len(ids) > 0 {
			s.Steered(ctx, ids, false)
		}
		return Outcome{}, false, nil
	}
	reason := "stopped before its first iteration (agentloop stop)"
	if st.Iteration > 0 {
		reason = fmt.Sprintf("stopped after iteration %d (agentloop stop)", st.Iteration)
	}
	if sg.Stop.By != "" {
		reason += " by " + sg.Stop.By
	}
	out, err := r.finish(ctx, Outcome{Status: state.StatusInterrupted, Reason: reason})
	if err == nil {
		s.Steered(ctx, ids, true)
	}
	return out, true, err
}

// joinGuidance adds one more piece of guidance to what the prompt carries.
func joinGuidance(all, text string) string {
	if all == "" {
		return text
	}
	return all + "\n\n" + text
}
