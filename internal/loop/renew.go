package loop

import "errors"

// Renewer is an [Env] whose session may end between two iterations to go on
// in a new one, as a Temporal workflow continues as new before its history
// grows past the server's limits. An environment that never does so does not
// implement it.
type Renewer interface {
	// Renewed reports whether this session goes on from one that returned
	// [ErrRenew]: Run then goes straight on to the next iteration, as if the
	// session had never ended (no run_started, no recovery, no baseline).
	Renewed() bool
	// Renew reports, at an iteration's boundary once what was queued for the
	// run is applied, whether the session ends now to go on in a new one.
	Renew() bool
}

// ErrRenew is what Run returns when its [Renewer] ended the session to go on
// in a new one: the state is as saved after the last iteration, its status
// running; the caller starts the next session with it.
var ErrRenew = errors.New("loop: the session goes on in a new one")
