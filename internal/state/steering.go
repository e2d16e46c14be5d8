package state

import "time"

// Steering is what people queued for a running loop.
type Steering struct {
	Guidance []Steer
	Stop     *StopRequest
}

// Steer is guidance a person gave a running loop: every later prompt of the
// run carries it, from the next iteration on.
type Steer struct {
	ID   string    `json:"id"` // unique, for the run's history: applied once
	Text string    `json:"text"`
	At   time.Time `json:"at"`
	By   string    `json:"by,omitempty"`
}

// StopRequest asks a running loop to end after its current iteration.
type StopRequest struct {
	At time.Time `json:"at"`
	By string    `json:"by,omitempty"`
}

// HasHandoff reports whether the run's history holds the hand-off named id.
func (s *State) HasHandoff(id string) bool {
	for _, h := range s.Handoffs {
		if h.ID != "" && h.ID == id {
			return true
		}
	}
	return false
}
