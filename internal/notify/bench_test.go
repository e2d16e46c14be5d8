package notify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/state"
)

// BenchmarkWatchEvent is what telling an event costs the loop that records
// it: nothing configured, a receiver that answers at once, and one that never
// answers (its deliveries pile up to the bound and are recorded as failed).
// The event is a budget warning: one notification each.
func BenchmarkWatchEvent(b *testing.B) {
	ev := state.Event{Time: at, Data: state.Warning{Message: "budget", Budget: []budget.Resource{budget.CostUSD}}}
	quick := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer quick.Close()
	stop := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	defer func() { close(stop); silent.Close() }()
	for _, bc := range []struct {
		name string
		url  string
	}{{"none", ""}, {"answering", quick.URL}, {"silent", silent.URL}} {
		b.Run(bc.name, func(b *testing.B) {
			var n *Notifier
			if bc.url != "" {
				var err error
				n, err = New(b.Context(), target.Config{Webhooks: []target.Endpoint{{URL: bc.url}}, Timeout: time.Hour}, Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			w := n.Watch(Run{Name: "build"}, func(state.Event) {})
			b.ResetTimer()
			for b.Loop() {
				w.Event(ev)
			}
			b.StopTimer()
			ctx, cancel := context.WithTimeout(b.Context(), 5*time.Second)
			defer cancel()
			n.Close(ctx)
		})
	}
}
