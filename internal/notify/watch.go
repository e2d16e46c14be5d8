package notify

import (
	"maps"
	"slices"
	"sync"

	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/state"
)

// Watch follows the events of one session of a run and sends the
// notifications they call for ([Of]). A run's end is held until the session
// ends ([Watch.End]): a run that stops for a budget or an agent's setup waits
// for a person, and its needs_you, which comes after run_finished, is the one
// notification it gets. A nil Watch does nothing.
type Watch struct {
	n      *Notifier
	run    Run
	record func(state.Event)
	mu     sync.Mutex
	held   *Notification
	ended  bool
}

// Watch is a watch of run's events; record is told of each delivery and
// failure (see [Notifier.Send]). A nil notifier gives a nil watch.
func (n *Notifier) Watch(run Run, record func(state.Event)) *Watch {
	if n == nil {
		return nil
	}
	if run.Engine == "" {
		run.Engine = "local"
	}
	return &Watch{n: n, run: run, record: record}
}

// Event takes one event of the run, as it is recorded.
func (w *Watch) Event(ev state.Event) {
	if w == nil {
		return
	}
	nt, ok := Of(w.run, ev, w.n.Rules())
	if !ok {
		return
	}
	w.mu.Lock()
	switch nt.Type {
	case target.KindFinished:
		w.held = &nt
		w.mu.Unlock()
		return
	case target.KindNeedsYou:
		w.held = nil // the run waits for a person: that is what to tell
	}
	w.mu.Unlock()
	w.n.Send(nt, w.record)
}

// End ends the session: the run's end, held, is sent. err is agentloop's own
// failure (nil when the run ended as the loop decided, or was interrupted):
// the run's end is then told as failed, also when no end was recorded (its
// state could not be saved). Events after End are still told; End is told once.
func (w *Watch) End(err error) {
	if w == nil {
		return
	}
	w.mu.Lock()
	held, ended := w.held, w.ended
	w.held, w.ended = nil, true
	w.mu.Unlock()
	if ended {
		return
	}
	switch {
	case held != nil && err != nil:
		w.n.Send(Failed(*held, err), w.record)
	case held != nil:
		w.n.Send(*held, w.record)
	case err != nil:
		run := w.run
		nt := Notification{Version: Version, Type: target.KindFinished, Time: w.n.o.Now(), Run: &run}
		nt.ID = eventID(run.Name, run.ID, string(nt.Type), nt.Time)
		w.n.Send(Failed(nt, err), w.record)
	}
}

func sortedKeys(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }
