//go:build temporal

package app

import (
	"context"
	"time"

	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/ui"
)

// interrupted is the outcome of following interrupted here.
var interrupted = Outcome{Status: state.StatusInterrupted}

// followRun shows the events of the run key ([temporal.Scoped]) from the
// from-th on until it ends or waits for a human. Interrupting it leaves the
// run going on on the workers. w, when set, is given each event shown, and
// ended when the run ends or waits: the follower sends the run's
// notifications, each once.
func (f *Fleet) followRun(ctx context.Context, screen *ui.Printer, key string, from int, w *notify.Watch) (Outcome, error) {
	name, _ := temporal.Unscoped(key)
	var out Outcome
	followed, err := poll(ctx, screen,
		// Each look reads the events from the first not yet shown, and the
		// run's state without its history: its cost does not grow with the run.
		func(ctx context.Context) (temporal.View, error) { return temporal.QueryFrom(ctx, f.c, key, from) },
		func(v temporal.View) bool {
			if !v.Waiting && v.State.Status.Ended() && w != nil {
				// The workflow records a stopped run's needs-you after its
				// end: its last events are read once it completed.
				v = f.completedView(ctx, key, v)
			}
			evs := v.Events[min(max(from-v.EventsFrom, 0), len(v.Events)):]
			for _, ev := range evs {
				screen.Event(ev)
				w.Event(ev)
			}
			from = max(from, v.EventsFrom+len(v.Events))
			if !v.Waiting && !v.State.Status.Ended() {
				return false
			}
			w.End(nil)
			out = epilogue(screen, name, v)
			return true
		},
		"The run goes on on the workers. Follow it with: agentloop follow "+name+" --engine temporal")
	if !followed {
		return interrupted, err
	}
	if err == nil && out.Status == state.StatusAborted {
		out.Refused = f.refused(ctx, key)
	}
	return out, err
}

// refused reports whether the workflow of the run key ended in a worker's
// refusal ([temporal.Refusal]); false for any other end, or one not known
// within seconds.
func (f *Fleet) refused(ctx context.Context, key string) bool {
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, ok := temporal.Refusal(f.c.GetWorkflow(wait, temporal.WorkflowID(key), "").Get(wait, nil))
	return ok
}

// Follow is `agentloop follow NAME --engine temporal`: the run's events so
// far, then the run followed as `run` follows it, until it ends or waits for
// a person; one that ended or waits is shown and its outcome returned at
// once. The notifications of what happens while it follows are sent from
// here, as `run` sends them (those of the events before were a follower's to
// send, if one was). Interrupting it leaves the run going on.
func (f *Fleet) Follow(ctx context.Context, name string, o FollowOptions) (Outcome, error) {
	v, key, err := f.find(ctx, name)
	if err != nil {
		return Outcome{}, err
	}
	screen, err := f.sh.Screen(Shown{})
	if err != nil {
		return Outcome{}, err
	}
	for _, ev := range v.Events {
		screen.Event(ev)
	}
	var w *notify.Watch
	if !v.Waiting && !v.State.Status.Ended() {
		wd, err := f.sh.Getwd()
		st := v.State
		var p *plan.Plan
		if err == nil {
			p, err = ResumePlan(&st, nil, o.Configure, wd, f.sh.Getenv, o.Verbose)
		}
		if err != nil {
			screen.Warnf("The run's notifications are not sent from here: its plan cannot be read (%v)", err)
		} else {
			var done func()
			if w, done, err = f.watch(ctx, p, st.RunID, screen); err != nil {
				return Outcome{}, err
			}
			defer done()
		}
	}
	return f.followRun(ctx, screen, key, len(v.Events), w)
}

// epilogue says what the person may do next with the run name, which ended
// or waits (v), and is its outcome.
func epilogue(screen *ui.Printer, name string, v temporal.View) Outcome {
	switch v.State.Status {
	case state.StatusEscalated:
		screen.Linef("The loop needs you: agentloop report %s --engine temporal", name)
		screen.Linef("Then: agentloop resume %s --guidance \"...\" --engine temporal", name)
	case state.StatusAborted, state.StatusInterrupted:
		screen.Linef("To continue it: agentloop resume %s --engine temporal", name)
	}
	return Outcome{Status: v.State.Status}
}

// poll asks query five times a second and hands each answer to show until
// show says it is done (followed: true), or ctx ends (false). While the
// server cannot be reached (an outage, a restart: [temporal.Unreachable]) it
// says so once and asks again with backoff, up to [pollBackoff] apart, for as
// long as it takes: what it follows goes on on the workers, and ends as it
// ends. Any other failing query is asked again for 30 s before its error is
// the result. Interrupting it says gone (what goes on without this process).
func poll[V any](ctx context.Context, screen *ui.Printer, query func(context.Context) (V, error), show func(V) bool, gone string) (followed bool, err error) {
	const every = 200 * time.Millisecond
	wait := every
	var failingSince time.Time
	lost := false // the server is unreachable, and this was said
	for {
		v, err := query(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
		case temporal.Unreachable(err):
			failingSince = time.Time{}
			if !lost {
				lost = true
				screen.Warnf("The Temporal server cannot be reached (%v). Still following: trying again until it answers (Ctrl-C stops following; the workers go on)", err)
			}
			wait = min(max(2*wait, time.Second), pollBackoff)
		case err != nil:
			wait = every
			if failingSince.IsZero() {
				failingSince = time.Now()
			} else if time.Since(failingSince) > 30*time.Second {
				return true, err
			}
		default:
			if lost {
				lost = false
				screen.Linef("The Temporal server answers again")
			}
			failingSince, wait = time.Time{}, every
			if show(v) {
				return true, nil
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			screen.Linef("%s", gone)
			return false, nil
		case <-t.C:
		}
	}
}

// pollBackoff is the longest [poll] waits between two tries while the server
// cannot be reached: how soon after an outage it follows again.
const pollBackoff = 5 * time.Second

// watch is the notifications' watch of the Temporal run of p (runID) that
// this process follows: the follower sends them, as a local run's process
// does, each delivery and failure shown on screen. nil when p configures no
// receiver; done waits for the deliveries under way.
func (f *Fleet) watch(ctx context.Context, p *plan.Plan, runID string, screen *ui.Printer) (w *notify.Watch, done func(), err error) {
	n, done, err := f.sh.Notifying(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	run := notify.Run{Name: p.Name, ID: runID, Procedure: p.Proc.Name, Repo: p.WorkDir, Engine: "temporal"}
	return n.Watch(run, screen.Event), done, nil
}

// completedView is the view of the run key, which ended (v), once its
// workflow completed: what the workflow records after the loop's end (a
// stopped run's needs-you) is in it. v when the workflow does not complete
// within a minute, or cannot be read.
func (f *Fleet) completedView(ctx context.Context, key string, v temporal.View) temporal.View {
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_ = f.c.GetWorkflow(wait, temporal.WorkflowID(key), "").Get(wait, nil)
	if wait.Err() != nil {
		return v
	}
	if done, err := temporal.Query(ctx, f.c, key); err == nil {
		return done
	}
	return v
}
