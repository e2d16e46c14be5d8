package loop

import (
	"errors"

	"github.com/agentloop/agentloop/internal/budget"
)

// Renewer is an [Env] whose session may end between two iterations to go on
// in a new one, as a Temporal workflow continues as new before its history
// grows past the server's limits. An environment that never does so does not
// implement it.
type Renewer interface {
	// Renewed reports whether this session goes on from one that returned
	// a [RenewError], and what that one carried: Run then goes straight on
	// to the next iteration, as if the session had never ended (no
	// run_started, no recovery, no baseline, no warning said twice).
	Renewed() (Carried, bool)
	// Renew reports, at an iteration's boundary once what was queued for the
	// run is applied, whether the session ends now to go on in a new one.
	Renew() bool
}

// ErrRenew is what a [RenewError] is: Run returns one when its [Renewer]
// ended the session to go on in a new one. The state is as saved after the
// last iteration, its status running; the caller starts the next session
// with it and what the error carries.
var ErrRenew = errors.New("loop: the session goes on in a new one")

// RenewError is the error of a session that ended to go on in a new one
// ([ErrRenew]).
type RenewError struct{ Carried Carried }

func (e *RenewError) Error() string        { return ErrRenew.Error() }
func (e *RenewError) Is(target error) bool { return target == ErrRenew }

// Carried is what a session knows beyond the state, which the session it
// goes on in is handed ([Renewer.Renewed]): the warnings it said once.
type Carried struct {
	Warned      []budget.Resource `json:",omitempty"` // the budgets warned about at 80%
	CostUnknown bool              `json:",omitempty"` // told the cost budget cannot be checked
}
