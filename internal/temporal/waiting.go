package temporal

import (
	"cmp"
	"context"

	"go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/decision"
)

// A run that waits for a person says so in its workflow's memo, which
// `temporal workflow list -o json` and the Temporal UI show and which the
// inbox reads without asking a worker: [MemoWaiting] holds the record of what
// it waits for (its question, its options and their commands) from the moment
// it waits until it is answered, and stays on a run that ended waiting for a
// person (a budget, its agent's setup). [MemoKept] marks the runs that keep
// it, so that a run without it is known not to wait; a run of an earlier
// build has neither, and is asked.
//
// The memo is shown, not searched: where the namespace has the search
// attribute [SearchWaiting] (a Keyword), a run also sets it to the kind of
// what it waits for, so that `temporal workflow list --query` finds the runs
// that wait. A workflow must not set an attribute its namespace does not
// have (its workflow task fails, BadSearchAttributes, again and again: the
// run stalls), so the run sets it only when its namespace had it when the run
// was started ([RunInput.Search]); otherwise the memo alone says it.

// The memo keys of a run's workflow.
const (
	// MemoWaiting is the [decision.Waiting] of a run waiting for a person.
	MemoWaiting = "agentloop.waiting"
	// MemoKept is set on a run that keeps MemoWaiting.
	MemoKept = "agentloop.memo"
)

// SearchWaiting is the search attribute, a Keyword, a run's workflow sets
// while it waits for a person to the kind of what it waits for
// ([decision.NeedsYou.Kind]: escalated, budget, merge, setup), and unsets
// once answered; a run that ended waiting keeps it. It is registered with
// `temporal operator search-attribute create --name AgentloopWaiting --type
// Keyword` (a dev server: `temporal server start-dev --search-attribute
// AgentloopWaiting=Keyword`).
const SearchWaiting = "AgentloopWaiting"

var waitingKey = temporal.NewSearchAttributeKeyKeyword(SearchWaiting)

// searchable reports whether the namespace has [SearchWaiting] as a Keyword;
// a namespace whose attributes cannot be listed (the operator service
// refused, the server is older) is taken not to.
func searchable(ctx context.Context, c client.Client, namespace string) bool {
	res, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: cmp.Or(namespace, DefaultNamespace)})
	return err == nil && res.GetCustomAttributes()[SearchWaiting] == enumspb.INDEXED_VALUE_TYPE_KEYWORD
}

// waitingChange is the version marker of the runs that keep MemoWaiting: a
// history recorded before replays without the memo's commands.
const waitingChange = "waiting-memo"

// markMemo marks a new run with [MemoKept], at its start, unless its start
// did ([RunInput.Kept]); a run started by an earlier build (its history
// without the marker) keeps no memo.
func (w *wfEnv) markMemo() {
	if w.in.Kept {
		w.memo = true
		return
	}
	if workflow.GetVersion(w.ctx, waitingChange, workflow.DefaultVersion, 1) >= 1 {
		w.memo = true
		w.upsertMemo(map[string]any{MemoKept: 1})
	}
}

// showWaiting puts the record of what the run waits for in its memo, and its
// kind in [SearchWaiting] when the run sets it (nil: takes them out, the run
// waits for nobody).
func (w *wfEnv) showWaiting(rec *decision.NeedsYou) {
	if !w.memo {
		return
	}
	var item any // nil removes the key
	if rec != nil {
		r := *rec
		if t := w.in.Run.Task; t != nil && r.Graph == "" {
			r.Graph = t.Graph
		}
		item = decision.Waiting{NeedsYou: r, Since: workflow.Now(w.ctx), RunID: w.st.RunID, Engine: engineName}
	}
	w.upsertMemo(map[string]any{MemoWaiting: item})
	if !w.in.Search {
		return
	}
	u := waitingKey.ValueUnset()
	if rec != nil {
		u = waitingKey.ValueSet(cmp.Or(rec.Kind, decision.NeedsEscalated))
	}
	if err := workflow.UpsertTypedSearchAttributes(w.ctx, u); err != nil {
		workflow.GetLogger(w.ctx).Warn("the run's search attribute was not updated", "run", w.in.Run.Name, "error", err)
	}
}

func (w *wfEnv) upsertMemo(m map[string]any) {
	if err := workflow.UpsertMemo(w.ctx, m); err != nil {
		workflow.GetLogger(w.ctx).Warn("the run's memo was not updated", "run", w.in.Run.Name, "error", err)
	}
}

// memoWaiting reads a run's memo: the item it waits for, if any, and whether
// the run keeps the memo at all (else it must be asked).
func memoWaiting(m *common.Memo) (item decision.Waiting, waiting, kept bool) {
	f := m.GetFields()
	if _, ok := f[MemoKept]; !ok {
		return decision.Waiting{}, false, false
	}
	p, ok := f[MemoWaiting]
	if !ok {
		return decision.Waiting{}, false, true
	}
	if err := converter.GetDefaultDataConverter().FromPayload(p, &item); err != nil {
		return decision.Waiting{}, false, false // unreadable: ask the run
	}
	return item, true, true
}
