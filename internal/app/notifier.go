package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/plan"
)

// NotifyTargetSyntax is how a receiver is written on the command line
// (--notify).
const NotifyTargetSyntax = target.Syntax

// NotifyOptions are what of this process the notifiers read.
type NotifyOptions struct {
	Getenv   func(string) string
	LookPath func(file string) (string, error)
	Now      func() time.Time
	Environ  func() []string // nil: none
	// Stderr is where the wait for deliveries under way is said.
	Stderr io.Writer
}

// newNotifier is the notifier of c (none when c has no receiver), logging on
// log, and done, which waits, at most one attempt's timeout, for the
// notifications still under way: call it when the loops have ended. A
// receiver that cannot work (a variable it names not set) is a usage error,
// found before anything runs.
func newNotifier(ctx context.Context, c target.Config, o NotifyOptions, log *slog.Logger) (n *notify.Notifier, done func(), err error) {
	no := notify.Options{Getenv: o.Getenv, LookPath: o.LookPath, Now: o.Now, Log: log}
	if o.Environ != nil {
		no.Environ = o.Environ()
	}
	n, err = notify.New(ctx, c, no)
	if err != nil {
		return nil, nil, &UsageError{err}
	}
	return n, func() {
		// Ctrl-C skips the wait (ctx ends); a wait of more than a second is said.
		wait, cancel := context.WithTimeout(ctx, n.ExitWait())
		defer cancel()
		t := time.AfterFunc(time.Second, func() {
			if k := n.Pending(); k > 0 {
				fmt.Fprintf(o.Stderr, "Delivering %d %s (at most %s; Ctrl-C skips)\n", k, pluralize(k, "notification"), n.ExitWait().Round(time.Second))
			}
		})
		defer t.Stop()
		n.Close(wait)
	}, nil
}

// Notifying is a [Shell]'s Notifying: the notifier of the receivers p
// configures (newNotifier), logging where log says a run of p logs.
func Notifying(o NotifyOptions, log func(Shown) (*slog.Logger, error)) func(ctx context.Context, p *plan.Plan) (*notify.Notifier, func(), error) {
	return func(ctx context.Context, p *plan.Plan) (*notify.Notifier, func(), error) {
		l, err := log(ShownOf(p))
		if err != nil {
			return nil, nil, err
		}
		return newNotifier(ctx, p.Notify, o, l)
	}
}
