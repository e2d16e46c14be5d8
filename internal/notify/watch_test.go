package notify

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/state"
)

// TestWatch pins what a session's events are told as: a run's end is held
// until the session ends, and a needs_you that comes after it replaces it.
func TestWatch(t *testing.T) {
	t.Parallel()
	finished := func(s state.Status) state.Event { return state.Event{Time: at, Data: state.RunFinished{Status: s}} }
	needs := state.Event{Time: at, Data: state.NeedsYou{NeedsYou: decision.NeedsYou{Kind: decision.NeedsBudget, Run: "build"}}}
	soft := state.Event{Time: at, Data: state.Warning{Message: "budget", Budget: []budget.Resource{budget.Tokens}}}
	tests := []struct {
		name   string
		events []state.Event
		err    error
		before []string // told before End
		after  []string // told in all
	}{
		{name: "succeeded, told at the end", events: []state.Event{soft, finished(state.StatusSucceeded)},
			before: []string{"budget_warning"}, after: []string{"budget_warning", "finished succeeded"}},
		{name: "a budget stop waits for you", events: []state.Event{finished(state.StatusAborted), needs},
			before: []string{"needs_you"}, after: []string{"needs_you"}},
		{name: "aborted by an error of agentloop", events: []state.Event{finished(state.StatusAborted)}, err: errors.New("disk full"),
			after: []string{"finished failed"}},
		{name: "no end recorded, an error", err: errors.New("the state cannot be saved"), after: []string{"finished failed"}},
		{name: "interrupted", events: []state.Event{finished(state.StatusInterrupted)}},
		{name: "escalated", events: []state.Event{needs, finished(state.StatusEscalated)}, before: []string{"needs_you"}, after: []string{"needs_you"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var told []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var n Notification
				_ = json.NewDecoder(r.Body).Decode(&n)
				mu.Lock()
				defer mu.Unlock()
				told = append(told, string(n.Type)+map[bool]string{true: " " + n.Status}[n.Status != ""])
			}))
			defer srv.Close()
			n := notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: srv.URL}}}, nil)
			w := n.Watch(Run{Name: "build", ID: "r1"}, nil)
			for _, ev := range tt.events {
				w.Event(ev)
			}
			waitFor := func() []string {
				n.wg.Wait() // what was sent so far, n left open
				mu.Lock()
				defer mu.Unlock()
				return slices.Clone(told)
			}
			if got := waitFor(); !slices.Equal(got, tt.before) {
				t.Errorf("told before End %q, want %q", got, tt.before)
			}
			w.End(tt.err)
			w.End(tt.err) // once
			drain(t, n)
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(told, tt.after) {
				t.Errorf("told %q, want %q", told, tt.after)
			}
		})
	}
}

// TestNilWatch: without a notifier (no notify: configured) the watch is nil
// and it, Send and Close do nothing: nothing is recorded, nothing panics.
func TestNilWatch(t *testing.T) {
	t.Parallel()
	var n *Notifier
	recorded := 0
	record := func(state.Event) { recorded++ }
	w := n.Watch(Run{Name: "x"}, record)
	if w != nil {
		t.Errorf("a nil notifier's watch is %+v, want nil", w)
	}
	w.Event(state.Event{Data: state.RunFinished{Status: state.StatusSucceeded}})
	w.Event(state.Event{Data: state.NeedsYou{NeedsYou: decision.NeedsYou{Kind: decision.NeedsEscalated, Run: "x"}}})
	w.End(errors.New("x"))
	n.Send(needsYou(), record)
	n.Close(t.Context())
	if recorded != 0 {
		t.Errorf("%d deliveries recorded without a notifier", recorded)
	}
}
