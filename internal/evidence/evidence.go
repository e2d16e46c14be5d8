// Package evidence holds the facts agentloop gathers about one iteration: what the
// agent did and spent, what the gates found, how the work tree changed and what the
// reviewer said. It is plain data shared by the producers (agent, gate, diff,
// review) and the consumers (decide, loop, report); it does no I/O. A gate
// that could not start is a fact too, as an error ([StartErrors]), and a
// usage turns into the budget's figures ([Usage.Cost], [Usage.Spent]).
package evidence

import "time"

// Iteration is everything observed in one iteration.
type Iteration struct {
	N        int          `json:"n"`
	Started  time.Time    `json:"started"`
	Finished time.Time    `json:"finished"`
	Agent    AgentResult  `json:"agent"`
	Gates    []GateResult `json:"gates,omitempty"`
	Diff     DiffFacts    `json:"diff"`
	Review   *Review      `json:"review,omitempty"`
	// Records is what the agent did to agentloop's records in git (its
	// checkpoint refs, the branch, HEAD), each with what agentloop put back.
	Records RecordChanges `json:"records,omitempty"`
}

// Duration is the wall time of the iteration.
func (it Iteration) Duration() time.Duration { return it.Finished.Sub(it.Started) }

// Spend is what the iteration used: its agent's usage (a fallback's
// included) and its reviewer's.
func (it Iteration) Spend() Usage {
	if it.Review == nil {
		return it.Agent.Usage
	}
	return it.Agent.Usage.Add(it.Review.Usage)
}

// RequiredGatesPassed reports whether every required gate passed (true when there are none).
func (it Iteration) RequiredGatesPassed() bool {
	for _, g := range it.Gates {
		if g.Required && !g.Passed {
			return false
		}
	}
	return true
}
