package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// Waiting lists the runs of the namespace that wait for a person, each with
// its record (see [state.NeedsYouNow]), the one that has waited longest first.
// A run's record is read from its workflow's memo ([MemoWaiting]), without a
// worker; a run of a build that kept no memo is asked (through its query, or
// its history once it ended), and one escalated by a build that kept no record
// gets one from its last escalation event.
func Waiting(ctx context.Context, c client.Client) ([]decision.Waiting, error) {
	runs, err := listRuns(ctx, c)
	if err != nil {
		return nil, err
	}
	var items []decision.Waiting
	var errs []error
	for _, r := range runs {
		if item, waiting, kept := memoWaiting(r.info.GetMemo()); kept {
			if waiting {
				items = append(items, item)
			}
			continue
		}
		item, ok, err := asked(ctx, c, r.key)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			items = append(items, item)
		}
	}
	decision.SortWaiting(items)
	if len(errs) > 0 {
		return items, fmt.Errorf("read the runs on the Temporal server: %w", errors.Join(errs...))
	}
	return items, nil
}

// asked is the record of the run key that waits for a person, read through
// its query (a run of a build that kept no memo); ok is false when it waits
// for nobody.
func asked(ctx context.Context, c client.Client, key string) (decision.Waiting, bool, error) {
	v, err := Query(ctx, c, key)
	if err != nil {
		return decision.Waiting{}, false, err
	}
	st := v.State
	if !v.Waiting && st.Status != state.StatusEscalated && st.Status != state.StatusAborted {
		return decision.Waiting{}, false, nil
	}
	rec, since, ok := state.NeedsYouNow(v.Events)
	if !ok && v.Waiting {
		rec, since, ok = lastEscalation(key, v.Events)
	}
	if !ok {
		return decision.Waiting{}, false, nil
	}
	if t := v.Graph; t != "" && rec.Graph == "" {
		rec.Graph = t
	}
	return decision.Waiting{NeedsYou: rec, Since: since, RunID: st.RunID, Engine: engineName}, true, nil
}

// lastEscalation is a record made of a waiting run's last escalation event.
func lastEscalation(name string, events []state.Event) (decision.NeedsYou, time.Time, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if e, ok := events[i].Data.(state.Escalated); ok {
			rep := decision.EscalationReport{Run: name, Flags: "--engine temporal", Reason: e.Reason, Question: e.Question,
				Options: []decision.Option{{Label: "Answer with guidance"}}}
			return rep.NeedsYou(), events[i].Time, true
		}
	}
	return decision.NeedsYou{}, time.Time{}, false
}
