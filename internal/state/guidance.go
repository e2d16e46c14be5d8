package state

// ApplyGuidance puts a human's answer into the state: the guidance goes into the
// next prompt, a new segment starts with the iteration counter and failure
// count at zero, spend is kept, and the hand-off is kept in the run's history.
// It returns the hand-off's event.
func ApplyGuidance(st *State, g Guidance) HandoffRecorded {
	st.Segment = max(st.Segment, 1) + 1
	st.Guidance = g.Text
	st.Iteration = 0
	st.ConsecutiveFailures = 0
	st.Next = Next{Strategy: "refine", Attempt: st.Next.Attempt + 1}
	return AddHandoff(st, Handoff{Kind: HandoffGuidance, At: g.At, By: g.By, Text: g.Text, Architecture: g.Architecture, Checkpoint: st.Tree})
}

// AddHandoff keeps a person's part in the run in its history (After and
// Segment are filled from the state) and returns its event.
func AddHandoff(st *State, h Handoff) HandoffRecorded {
	h.After = st.Attempts
	h.Segment = max(st.Segment, 1)
	st.Handoffs = append(st.Handoffs, h)
	return HandoffRecorded{Handoff: h}
}
