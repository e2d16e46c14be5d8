package temporal

import (
	"context"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// A run's side of the ledger workflow (ledger.go): its reserve step, its
// wait while parked or in a usage window, and the settlement of its
// iteration on the worker.

// spendChange is the version marker of the runs that reserve each iteration
// in the ledger workflow (a history recorded before has no reserve step).
const spendChange = "shared-spend"

// parkLook is how often a run parked by a soft limit looks at the ledger
// again when no approval wakes it first (a raised cap, a new period).
const parkLook = 5 * time.Minute

// Hold is the reservation an iteration runs under, granted by the ledger
// workflow: the iteration's step settles it.
type Hold struct {
	ID  string
	Run string
	// Agent is the fallback agent the iteration runs on, its configured
	// agent's account at its usage limit ("": the agent it asks for).
	Agent      string `json:",omitempty"`
	Key        budget.Key
	LeftUSD    float64
	LeftTokens int64
}

// Reserved is the reserve step's answer.
type Reserved struct {
	// Off: the worker's configuration has no budgets: section; nothing is
	// reserved.
	Off   bool `json:",omitempty"`
	Reply ReserveReply
	Hold  Hold
	Poll  time.Duration `json:",omitempty"` // the worker's budget poll: how often a parked run looks again at the least
}

// shared reports whether the run reserves each iteration in the ledger
// workflow: it was started with budgets, by a build that does.
func (w *wfEnv) shared() bool {
	return w.in.Shared && workflow.GetVersion(w.ctx, spendChange, workflow.DefaultVersion, 1) >= 1
}

// reserve is the reserve step: a worker reserves the next iteration against
// its configuration's caps in the ledger workflow. A hard limit stops the
// run as a budget abort. The account's usage window moves the iteration to
// the first fallback agent whose account is free (the reservation and the
// iteration are that agent's). A soft limit, or a window with no fallback
// free, makes the run wait here, in its workflow: no step runs and no worker
// slot is held; a parked run shows the approve command in its memo and
// events, and an approval wakes it. The wait is no iteration's and not billed.
func (w *wfEnv) reserve(r loop.StepRequest) (state.StepResult, error) {
	now := workflow.Now(w.ctx)
	res := state.StepResult{Started: now, Finished: now}
	in := StepInput{Run: w.in.Run, Request: r, Last: w.last()}
	var toldPark string
	var toldWindow time.Time
	defer func() {
		if toldPark != "" {
			w.showWaiting(nil)
		}
	}()
	for {
		out, err := w.execStep(r, in)
		if err != nil {
			return res, stepError(err)
		}
		rv := out.Reserved
		if rv == nil || rv.Off {
			return res, nil
		}
		if win := rv.Reply.Window; win != nil && rv.Reply.Fallback == 0 {
			if !win.Until.Equal(toldWindow) {
				toldWindow = win.Until
				w.warn(engine.WaitsForReset(*win, utc(win.Until)))
			}
			if err := w.waitBudget(win.Until.Sub(workflow.Now(w.ctx)) + time.Second); err != nil {
				return res, err
			}
			continue
		}
		if r.Agent == "" {
			if fb := rv.Hold.Agent; fb != "" && fb != w.fallback && rv.Reply.Window != nil {
				w.warn(engine.OnFallback(*rv.Reply.Window, utc(rv.Reply.Window.Until), fb))
			}
			w.fallback = rv.Hold.Agent
		}
		g := rv.Reply.Grant
		switch g.Verdict {
		case ledger.Granted:
			h := rv.Hold
			h.LeftUSD, h.LeftTokens = g.LeftUSD, g.LeftTokens
			w.hold = &h
			return res, nil
		case ledger.Refused:
			return res, &loop.StopError{Status: state.StatusAborted, Reason: "budget: " + g.Reason}
		}
		if toldPark != g.Cap.Name+" "+g.Period {
			toldPark = g.Cap.Name + " " + g.Period
			rec := engine.Parked(w.in.Run.Name, "", w.reach(), g)
			_ = w.Emit(context.Background(), state.Event{Iteration: w.st.Iteration, Data: state.NeedsYou{NeedsYou: rec}})
			w.showWaiting(&rec)
		}
		if err := w.waitBudget(max(rv.Poll, parkLook)); err != nil {
			return res, err
		}
	}
}

// reach is what the commands of the run's records need after them to reach
// its engine.
func (w *wfEnv) reach() string { return strings.TrimSpace("--engine temporal " + w.in.ServerFlags) }

// utc says a reset time as the workflow's clock does.
func utc(t time.Time) string { return t.UTC().Format(time.DateTime) + " UTC" }

func (w *wfEnv) warn(msg string) {
	_ = w.Emit(context.Background(), state.Event{Iteration: w.st.Iteration, Data: state.Warning{Message: msg}})
}

// waitBudget waits for d, or until the ledger workflow wakes the run (an
// approval); cancelled, the run stops interrupted.
func (w *wfEnv) waitBudget(d time.Duration) error {
	if w.pending != nil && w.keptWithStep() {
		w.writeKept() // the last iteration's files, for the person who approves
	}
	ch := workflow.GetSignalChannel(w.ctx, SignalBudget)
	_, err := workflow.AwaitWithTimeout(w.ctx, max(d, time.Second), func() bool { return ch.Len() > 0 })
	var name string
	for ch.ReceiveAsync(&name) {
	}
	if err != nil {
		return &loop.StopError{Status: state.StatusInterrupted, Reason: "the workflow was cancelled while it waited for the spend ledger"}
	}
	return nil
}

// reserveStep is the reserve step on a worker: the iteration's predicted
// cost, charged to the key of the agent that runs it, against the caps of
// this worker's configuration.
func (s *Steps) reserveStep(ctx context.Context, in StepInput) (StepOutput, error) {
	l, p, _, done, err := s.engine(ctx, in.Run)
	if err != nil {
		return StepOutput{}, planError(err)
	}
	defer done()
	out := StepOutput{Queue: s.Queue}
	if !p.Budgets.Given {
		out.Reserved = &Reserved{Off: true}
		return out, nil
	}
	if s.Ledger == nil {
		return out, temporal.NewNonRetryableApplicationError(noLedger, "agentloop.Ledger", nil)
	}
	r := in.Request
	names, keys := engine.Routes(r, l.RateLimit.Fallback, p.Keys)
	h := Hold{ID: in.Run.RunID + "#" + strconv.Itoa(r.Seq), Run: spendRun(p), Key: keys[0]}
	rs := ledger.Reservation{ID: h.ID, Run: h.Run, Graph: p.Graph, Key: keys[0], First: ledger.FirstUSD(p.Budgets.Caps, keys[0], p.Budgets.FirstIterationUSD)}
	if r.Reserve.CostKnown {
		rs.USD = r.Reserve.CostUSD
	}
	if r.Reserve.TokensKnown {
		rs.Tokens = r.Reserve.Tokens
	}
	reply, err := s.Ledger.Reserve(ctx, ReserveArgs{Reservation: rs, Fallbacks: keys[1:], Caps: p.Budgets.Caps, Margin: budget.Margin, Holder: activity.GetInfo(ctx).WorkflowExecution.ID})
	if err != nil {
		return out, err // the server's or the ledger workflow's trouble: tried again
	}
	if i := reply.Fallback; i > 0 && i < len(names) {
		h.Agent, h.Key = names[i], keys[i]
	}
	out.Reserved = &Reserved{Reply: reply, Hold: h, Poll: p.BudgetPoll}
	return out, nil
}

const noLedger = "this worker's configuration has budgets: but the worker has no spend ledger to reserve in; caps are never ignored: start the worker with this build's agentloop worker"

// spendRun names a run in the ledger, for people: its work tree and name.
func spendRun(p *plan.Plan) string { return p.WorkDir + " " + p.Name }

// underHold makes the engine settle the iteration about to run in the ledger
// workflow, under the reservation in.Hold; without one, a worker whose
// configuration has budgets: refuses the iteration (its caps would be
// ignored). undo takes it away after the step.
func (s *Steps) underHold(ctx context.Context, l *engine.Local, p *plan.Plan, in StepInput) (undo func(), err error) {
	if in.Request.Kind != loop.StepIteration {
		return func() {}, nil
	}
	if in.Hold == nil {
		if p.Budgets.Given {
			return nil, temporal.NewNonRetryableApplicationError(unshared(in.Run.Name, p), "agentloop.Budgets", nil)
		}
		return func() {}, nil
	}
	if s.Ledger == nil {
		return nil, temporal.NewNonRetryableApplicationError(noLedger, "agentloop.Ledger", nil)
	}
	h := in.Hold
	l.Spend = &engine.SharedSpend{Caps: p.Budgets.Caps, Run: h.Run, Keys: p.Keys, Reviewer: p.ReviewerKey, Journal: journal{ctx: ctx, lc: *s.Ledger}}
	l.Hold(h.ID, h.Agent, h.Key, h.LeftUSD, h.LeftTokens)
	return func() { l.Spend = nil }, nil
}

// unshared says why a worker with caps refuses an iteration reserved nowhere.
func unshared(run string, p *plan.Plan) string {
	var names []string
	for _, c := range p.Budgets.Caps {
		names = append(names, c.Name)
	}
	caps := "a budgets: section"
	if len(names) > 0 {
		caps = "budgets: caps (" + strings.Join(names, ", ") + ")"
	}
	return "run " + run + " was started without the shared spend, but this worker's configuration has " + caps +
		", which would be ignored: give the configuration the run is started from (agentloop run --engine temporal) the same budgets: as the workers' and start it again (agentloop resume " + run + " --engine temporal)"
}

// journal is the ledger workflow as the engine settles in it: a settlement
// goes on when the step is cancelled (what was spent was spent).
type journal struct {
	ctx context.Context
	lc  LedgerClient
}

func (j journal) Settle(id, run string, k budget.Key, charges []ledger.Charge) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(j.ctx), time.Minute)
	defer cancel()
	return j.lc.SettleIn(ctx, SettleArgs{ID: id, Run: run, Key: k, Charges: charges})
}

func (j journal) OpenWindow(k budget.Key, until time.Time, reason string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(j.ctx), time.Minute)
	defer cancel()
	return j.lc.Window(ctx, WindowArgs{Key: k, Until: until, Reason: reason})
}
