package config

import (
	"errors"
	"fmt"

	"github.com/agentloop/agentloop/internal/yamlnode"
)

// ErrInvalid is wrapped by every error that [Load] returns for a configuration
// a user must fix (as opposed to a file that cannot be read).
var ErrInvalid = errors.New("invalid configuration")

// Error is one problem in a configuration, at a place.
type Error struct {
	Where  string // "agentloop.yaml", "env AGENTLOOP_X", "flag --x", "built-in"
	Line   int    // 1-based; 0 when the place has no lines
	Column int
	Key    string // dotted path of the key, e.g. procedures.build.limits
	Msg    string
}

func (e *Error) Error() string { return yamlnode.Problem(e.Where, e.Line, e.Column, e.Key, e.Msg) }

// Problems lists every [Error] in err (as joined by [Load]).
func Problems(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		if e, ok := err.(*Error); ok {
			out = append(out, e)
			return
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			if x := u.Unwrap(); x != nil {
				walk(x)
			}
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// maxProblems is how many problems an error lists.
const maxProblems = 50

func invalid(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	if n := len(errs); n > maxProblems {
		errs = append(errs[:maxProblems:maxProblems], fmt.Errorf("… and %d more problems", n-maxProblems))
	}
	return fmt.Errorf("%w (fix these and run again):\n%w", ErrInvalid, errors.Join(errs...))
}
