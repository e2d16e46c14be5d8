package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// The kinds of [Record].
const (
	KindReserve = "reserve" // an iteration is about to start: its predicted cost is held
	KindSettle  = "settle"  // an iteration ended: what it spent replaces what was held
	KindApprove = "approve" // a person let a soft limit be passed for a period
	KindWindow  = "window"  // an account hit its usage limit until a reset time
)

// Record is one line of the ledger file.
type Record struct {
	Kind string    `json:"k"`
	ID   string    `json:"id,omitempty"` // the reservation: one iteration's attempt
	At   time.Time `json:"at"`
	Run  string    `json:"run,omitempty"` // which run or task, for people
	// Graph (reserve) is the task graph of the task; its settlement sums
	// under it.
	Graph string `json:"graph,omitempty"`
	budget.Key
	USD     float64   `json:"usd,omitempty"`
	Tokens  int64     `json:"tokens,omitempty"`
	Owner   *Owner    `json:"owner,omitempty"`   // reserve: the process that holds it
	Charges []Charge  `json:"charges,omitempty"` // settle
	Cap     string    `json:"cap,omitempty"`     // approve
	Period  string    `json:"period,omitempty"`  // approve: the period's name ("2026-11-25")
	Until   time.Time `json:"until,omitzero"`    // window: when the usage limit resets
	Reason  string    `json:"reason,omitempty"`  // window: the CLI's words
	By      string    `json:"by,omitempty"`      // approve: who
}

// Charge is what one agent of an iteration spent, charged to its key.
// Estimated marks an amount the agent did not report (its CLI tells no
// cost): the reservation's share stands in for it.
type Charge struct {
	budget.Key
	USD       float64 `json:"usd"`
	Tokens    int64   `json:"tokens"`
	Estimated bool    `json:"estimated,omitempty"`
}

// Owner is the process holding a reservation; a reservation whose owner died
// is no longer counted as open.
type Owner struct {
	PID   int    `json:"pid"`
	Host  string `json:"host"`
	Start string `json:"start,omitempty"` // the process's start time: tells a reused pid apart
}

// CorruptError is a line of the ledger file that cannot be read.
type CorruptError struct {
	Path string
	Line int
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("the spend ledger %s is damaged at line %d (%v): move it aside (mv %s %s.bad) and agentloop starts a new one; the spend it recorded then no longer counts against the caps",
		e.Path, e.Line, e.Err, e.Path, e.Path)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// ParseRecord reads one line of the ledger.
func ParseRecord(line []byte) (Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&r); err != nil {
		return Record{}, err
	}
	if dec.More() {
		return Record{}, errors.New("more than one record on the line")
	}
	if r.Kind == "" {
		return Record{}, errors.New("a record without its kind (k)")
	}
	if r.At.IsZero() {
		return Record{}, errors.New("a record without its time (at)")
	}
	switch r.Kind {
	case KindReserve, KindSettle:
		if r.ID == "" {
			return Record{}, fmt.Errorf("a %s record without its id", r.Kind)
		}
	case KindApprove:
		if r.Cap == "" || r.Period == "" {
			return Record{}, errors.New("an approve record without its cap or period")
		}
	case KindWindow:
		if r.Provider == "" || r.Until.IsZero() {
			return Record{}, errors.New("a window record without its provider or reset time")
		}
	}
	return r, nil
}
