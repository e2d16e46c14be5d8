package temporal

import (
	"context"
	"os"
	"time"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// A Temporal run's notifications are sent once each, by whoever sees their
// event: the process that follows the run sends what its workflow records
// (needs_you, finished, budget_warning); the worker sends rate_limited, as
// a rate-limit wait happens inside a step, on the worker, and the workflow
// hears of the step only once it ended, the wait over. The worker's
// deliveries and failures are in its log.

// rateLimits is the event log of a run's engine on a worker: the engine's
// rate-limit waits are told to the run's notifications' watch; nothing is
// recorded (the run's events are its workflow's).
type rateLimits struct{ w *notify.Watch }

func (r rateLimits) Append(ev state.Event) error {
	if w, ok := ev.Data.(state.Warning); ok && w.RateLimitWait > 0 {
		r.w.Event(ev)
	}
	return nil
}

// notifier is the notifier of the run r whose plan is p on this worker, with
// the event log that tells its engine's rate-limit waits; nil (and a nil log)
// when the plan configures no receiver, or one that cannot work here (a
// variable of its secret not set on this worker: logged).
func (s *Steps) notifier(ctx context.Context, p *plan.Plan, r RunRef) (*notify.Notifier, engine.EventLog) {
	n, err := notify.New(ctx, p.Notify, notify.Options{Log: s.Log})
	if err != nil {
		s.Log.Warn("the run's notifications are not sent from this worker", "run", r.Name, "error", err)
		return nil, nil
	}
	if n == nil {
		return nil, nil
	}
	host, _ := os.Hostname()
	run := notify.Run{Name: r.Name, ID: r.RunID, Procedure: p.Proc.Name, Repo: p.WorkDir, Host: host, Engine: engineName}
	if t := r.Task; t != nil {
		run.Graph, run.Task = t.Graph, t.Task.ID
	}
	record := func(ev state.Event) {
		switch d := ev.Data.(type) {
		case state.NotificationSent:
			s.Log.Info("notification sent", "run", r.Name, "notification", d.Notification, "target", d.Target)
		case state.NotificationFailed:
			s.Log.Warn("notification not delivered", "run", r.Name, "notification", d.Notification, "target", d.Target, "attempts", d.Attempts, "error", d.Error)
		}
	}
	return n, rateLimits{w: n.Watch(run, record)}
}

// closeNotifier lets the deliveries of an evicted run's notifier end, at
// most a minute, without holding the step that evicted it (ctx's).
func closeNotifier(ctx context.Context, n *notify.Notifier) {
	if n == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		n.Close(ctx)
	}()
}
