package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/notify"
)

// notifying is the process of a command that runs loops, with the notifier
// of c (none when c has no receiver). done waits, at most one attempt's
// timeout, for the notifications still under way: call it when the loops
// have ended. A receiver that cannot work (a variable it names not set) is a
// usage error, found before anything runs.
func notifying(ctx context.Context, d Deps, c notify.Config, log *slog.Logger) (pr app.Process, done func(), err error) {
	o := notify.Options{Getenv: d.Getenv, LookPath: d.LookPath, Now: d.Now, Log: log}
	if d.Environ != nil {
		o.Environ = d.Environ()
	}
	n, err := notify.New(ctx, c, o)
	if err != nil {
		return app.Process{}, nil, &ExitError{Code: ExitUsage, Err: err}
	}
	pr = process(d)
	pr.Notify = n
	return pr, func() {
		// Ctrl-C skips the wait (ctx ends); a wait of more than a second is said.
		wait, cancel := context.WithTimeout(ctx, n.ExitWait())
		defer cancel()
		t := time.AfterFunc(time.Second, func() {
			if k := n.Pending(); k > 0 {
				fmt.Fprintf(d.Stderr, "Delivering %d %s (at most %s; Ctrl-C skips)\n", k, plural(k, "notification"), n.ExitWait().Round(time.Second))
			}
		})
		defer t.Stop()
		n.Close(wait)
	}, nil
}

func plural(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}
