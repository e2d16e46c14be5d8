package temporal

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// QueryTail is the query of what a follower needs of a run at each look:
// its state without its history, and its events from an index on. The state
// query ([QueryState]) answers with the whole run, whose records and events
// grow with its iterations: a follower asking five times a second for hours
// made the worker encode, and the server carry, the run's whole past at
// every look.
const QueryTail = "tail"

// tail answers [QueryTail]: the run's view from its event from on, its
// state's history left out.
func (w *wfEnv) tail(from int) (View, error) {
	v, err := w.view()
	return v.from(from), err
}

// from is v without its state's history, its events from the index i on.
func (v View) from(i int) View {
	v.State.History = nil
	v.EventsFrom = min(max(i, 0), len(v.Events))
	v.Events = v.Events[v.EventsFrom:]
	return v
}

// QueryFrom reads a run as [Query] does, its events from the index from on
// ([View.EventsFrom] says where its Events start) and its state without its
// history, while its workflow goes on; a run that ended is read whole, from
// its history, as [Query] reads it, its events cut the same way. A worker of a
// build before the tail query is asked the whole state.
func QueryFrom(ctx context.Context, c client.Client, key string, from int) (View, error) {
	id := WorkflowID(key)
	d, err := ended(ctx, c, id)
	if err == nil && !d.over {
		r, qerr := c.QueryWorkflow(ctx, id, d.runID, QueryTail, from)
		if err = qerr; err == nil {
			var v View
			if err := r.Get(&v); err != nil {
				name, _ := Unscoped(key)
				return View{}, fmt.Errorf("decode the state of run %s: %w", name, err)
			}
			v.Live = d.live
			return v, nil
		}
		if _, ok := errors.AsType[*serviceerror.QueryFailed](err); !ok || !strings.Contains(err.Error(), "unknown queryType") {
			name, _ := Unscoped(key)
			return View{}, fmt.Errorf("query run %s: %w", name, err)
		}
	}
	v, err := Query(ctx, c, key)
	return v.from(from), err
}
