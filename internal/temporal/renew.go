package temporal

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// A run's workflow history grows with its iterations (about 6 events and
// 1.7 kB each); the server ends a workflow past 51,200 events or 50 MB. So
// between two iterations, once the server suggests it (past 4,096 events,
// some 680 iterations, on a server with the default settings), or every
// [RunInput.RenewEvery] iterations, a run's workflow continues as new: the
// next run of the same workflow ID, started with the run's state and what
// its workflow keeps beside it ([Renewal]), goes on where it left off, as
// if it never stopped ([loop.Renewer]). A query, an update and a cancel
// name the workflow ID alone, and reach the latest run.
//
// The workflow keeps every record and event of the run (its decider reads
// them all, its query shows them all: status, follow, report), so what it
// carries grows with the run: gzipped, some 30 bytes an iteration of a plain
// loop (3,000 iterations: 83 kB, TestMeasureLongRun), far from the 2 MB of
// the server's largest payload.

// renewChange is the version marker of the runs that continue as new: a
// history recorded before never did, and replays as it ran.
const renewChange = "continue-as-new"

// Renewal is what a run's workflow carries into the run it continues as,
// beside the run's state ([RunInput.State], its records left out): what the
// query shows and what the next steps need.
type Renewal struct {
	// Kept is the run's records and events, gzipped JSON ([kept]).
	Kept       []byte
	Escalation *state.Escalation `json:",omitempty"` // the last one, answered
	Queue      string            `json:",omitempty"` // the worker's holding the work tree ([route])
	Known      bool              `json:",omitempty"`
	Told       evidence.Usage    // the spend last told to the graph
	Pending    *state.Artifacts  `json:",omitempty"` // for the next step to write
	Queued     state.Steering    // what was steered and not yet applied
	Fallback   string            `json:",omitempty"`
	Memo       bool              `json:",omitempty"`
	// Loop is what the loop's session knew beyond the state.
	Loop loop.Carried
}

// kept is what [Renewal.Kept] holds.
type kept struct {
	History []state.Record
	Events  []state.Event
}

// Renewed implements [loop.Renewer].
func (w *wfEnv) Renewed() (loop.Carried, bool) {
	if r := w.in.Renewed; r != nil {
		return r.Loop, true
	}
	return loop.Carried{}, false
}

// Renew implements [loop.Renewer]: the run continues as new once the
// server suggests it, or every RenewEvery iterations, and at least one
// iteration after its workflow's start.
func (w *wfEnv) Renew() bool {
	ran := w.st.TotalIterations - w.from
	due := workflow.GetInfo(w.ctx).GetContinueAsNewSuggested() || w.in.RenewEvery > 0 && ran >= w.in.RenewEvery
	if !due || ran < 1 || w.waiting != nil || w.ctx.Err() != nil {
		return false
	}
	return workflow.GetVersion(w.ctx, renewChange, workflow.DefaultVersion, 1) >= 1
}

// renew is the error that continues the run's workflow as new, once the
// handlers of its updates under way are done (a steer queued meanwhile is
// carried).
func (w *wfEnv) renew(c loop.Carried) error {
	// Not cut by a cancel: the next run is cancelled in its turn.
	ctx, _ := workflow.NewDisconnectedContext(w.ctx)
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	b, err := zipKept(kept{History: w.st.History, Events: w.events})
	if err != nil {
		return fmt.Errorf("carry the run's records into its next workflow: %w", err)
	}
	next := w.in
	next.State = *w.st
	next.State.History = nil
	next.Renewed = &Renewal{
		Kept: b, Escalation: w.escalation, Queue: w.route.queue, Known: w.route.known,
		Told: w.told, Pending: w.pending, Queued: w.queued, Fallback: w.fallback, Memo: w.memo, Loop: c,
	}
	return workflow.NewContinueAsNewError(w.ctx, WorkflowRun, next)
}

// renewed restores what the run's last workflow carried ([wfEnv.renew]).
func (w *wfEnv) renewed() error {
	r := w.in.Renewed
	k, err := unzipKept(r.Kept)
	if err != nil {
		return fmt.Errorf("read the run's records its last workflow carried: %w", err)
	}
	w.st.History, w.events = k.History, k.Events
	w.escalation, w.route = r.Escalation, route{queue: r.Queue, known: r.Known}
	w.told, w.pending, w.queued, w.fallback, w.memo = r.Told, r.Pending, r.Queued, r.Fallback, r.Memo
	return nil
}

func zipKept(k kept) ([]byte, error) {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	if err := json.NewEncoder(z).Encode(k); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func unzipKept(b []byte) (kept, error) {
	var k kept
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return k, err
	}
	d, err := io.ReadAll(z)
	if err != nil {
		return k, err
	}
	return k, json.Unmarshal(d, &k)
}

var _ loop.Renewer = (*wfEnv)(nil)
