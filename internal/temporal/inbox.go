package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/inbox"
	"github.com/agentloop/agentloop/internal/loop"
)

// Waiting lists the runs of the namespace that wait for a person, each with
// its record (see [inbox.Current]), the one that has waited longest first. A
// run escalated by a build that kept no record gets one from its last
// escalation event.
func Waiting(ctx context.Context, c client.Client) ([]inbox.Item, error) {
	names, err := Names(ctx, c)
	if err != nil {
		return nil, err
	}
	var items []inbox.Item
	var errs []error
	for _, n := range names {
		v, err := Query(ctx, c, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		st := v.State
		if !v.Waiting && st.Status != loop.StatusEscalated && st.Status != loop.StatusAborted {
			continue
		}
		rec, since, ok := inbox.Current(v.Events)
		if !ok && v.Waiting {
			rec, since, ok = lastEscalation(n, v.Events)
		}
		if !ok {
			continue
		}
		if t := v.Graph; t != "" && rec.Graph == "" {
			rec.Graph = t
		}
		items = append(items, inbox.Item{NeedsYou: rec, Since: since, RunID: st.RunID, Engine: "temporal"})
	}
	inbox.Sort(items)
	if len(errs) > 0 {
		return items, fmt.Errorf("read the runs on the Temporal server: %w", errors.Join(errs...))
	}
	return items, nil
}

// lastEscalation is a record made of a waiting run's last escalation event.
func lastEscalation(name string, events []loop.Event) (decision.NeedsYou, time.Time, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if e, ok := events[i].Data.(loop.Escalated); ok {
			rep := decision.EscalationReport{Run: name, Flags: "--engine temporal", Reason: e.Reason, Question: e.Question,
				Options: []decision.Option{{Label: "Answer with guidance"}}}
			return rep.NeedsYou(), events[i].Time, true
		}
	}
	return decision.NeedsYou{}, time.Time{}, false
}
