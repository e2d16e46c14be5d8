package temporal

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/ledger"
)

// The spend shared by every run on a Temporal namespace is one long-lived
// workflow, the ledger workflow ([LedgerWorkflowID]): it holds the ledger's
// book ([ledger.Book], the same fold and the same judging as the file ledger
// of local runs) and takes its acts as updates. Before an iteration of a run
// whose plan has budgets: (on the worker running it) the run's workflow asks
// a worker to reserve the iteration's predicted cost against the caps of
// that worker's configuration ([UpdateReserve]); the iteration's step
// settles what it spent ([UpdateSettle]). A hard limit ends the run as a
// budget abort; a soft limit parks it: the run waits in its workflow (no
// step, no worker slot) as it waits for guidance, its memo saying so with
// the approve command, until `agentloop budget approve --engine temporal`
// ([UpdateApprove]) wakes it ([SignalBudget]) or a look later finds room (a
// raised cap, a new period). An account at its usage limit ([UpdateWindow])
// moves every run on it to its first fallback agent whose account is free
// ([ReserveArgs.Fallbacks]), back after the reset; a run with none waits
// until the reset, with no step either.
//
// The periods of the ledger workflow are UTC days, ISO weeks and months (the
// fleet's machines may be in many time zones; the workflow has one clock).
// A reservation is settled once, whichever worker settles it (the step of an
// iteration run again after its worker died settles the same one). Its
// history is started anew every [maxLedgerActs] acts (continue-as-new),
// carrying the book's snapshot: the current periods and the last five weeks'
// settlements, never every record.

// The names of the ledger workflow, its updates, its query and the signal
// it sends the runs it parked.
const (
	WorkflowLedger = "agentloop.ledger"
	UpdateReserve  = "ledger.reserve"
	UpdateSettle   = "ledger.settle"
	UpdateApprove  = "ledger.approve"
	UpdateWindow   = "ledger.window"
	QueryLedger    = "ledger.report"
	SignalBudget   = "agentloop.budget"
)

// LedgerWorkflowID is the ledger workflow of a namespace: one for every run
// on it. Caps per account ([budget.Key.Account]) keep users' spend apart.
const LedgerWorkflowID = "agentloop-ledger"

// maxLedgerActs is how many acts a ledger workflow's history takes before it
// is started anew (each act is a handful of events).
const maxLedgerActs = 1000

// LedgerInput is the ledger workflow's argument: the book carried over from
// its last history, and the runs it parked then.
type LedgerInput struct {
	Book   *ledger.Snapshot `json:",omitempty"`
	Parked []string         `json:",omitempty"`
	// MaxActs is how many acts before the history is started anew (0:
	// [maxLedgerActs]); for tests.
	MaxActs int `json:",omitempty"`
}

// ReserveArgs is the reserve update's argument: the reservation, the caps of
// the configuration of the worker asking, and the run to wake when a
// person approves the cap that parked it.
type ReserveArgs struct {
	Reservation ledger.Reservation
	// Fallbacks are the keys of the agents the iteration may run on
	// instead, in order ([engine.Routes]), when the reservation's account is
	// at its usage limit: the reservation is the first free one's
	// ([ledger.Book.Route]); none free (or none given), it waits.
	Fallbacks []budget.Key `json:",omitempty"`
	Caps      []ledger.Cap
	Margin    float64
	Holder    string // the run's workflow ID
}

// ReserveReply is the reserve update's answer: the grant, or the usage
// window of the account (nothing is reserved while it is open).
type ReserveReply struct {
	Grant  ledger.Grant
	Window *ledger.Window `json:",omitempty"`
	// Fallback, from 1, says the reservation went around Window onto
	// [ReserveArgs.Fallbacks][Fallback-1], whose is the grant.
	Fallback int `json:",omitempty"`
}

// SettleArgs is the settle update's argument.
type SettleArgs struct {
	ID      string
	Run     string
	Key     budget.Key
	Charges []ledger.Charge
}

// ApproveArgs is the approve update's argument.
type ApproveArgs struct {
	Cap ledger.Cap
	By  string
}

// WindowArgs is the window update's argument.
type WindowArgs struct {
	Key    budget.Key
	Until  time.Time
	Reason string
}

// Ledger is the ledger workflow.
func Ledger(ctx workflow.Context, in LedgerInput) error {
	lw := &ledgerWf{parked: map[string]bool{}}
	if in.Book != nil {
		lw.book = ledger.Restore(*in.Book, time.UTC)
	} else {
		lw.book = ledger.NewBook(time.UTC)
	}
	for _, id := range in.Parked {
		lw.parked[id] = true
	}
	handlers := []struct {
		name string
		fn   any
	}{{UpdateReserve, lw.reserve}, {UpdateSettle, lw.settle}, {UpdateApprove, lw.approve}, {UpdateWindow, lw.window}}
	for _, h := range handlers {
		if err := workflow.SetUpdateHandler(ctx, h.name, h.fn); err != nil {
			return fmt.Errorf("register the %s update: %w", h.name, err)
		}
	}
	if err := workflow.SetQueryHandler(ctx, QueryLedger, lw.report); err != nil {
		return fmt.Errorf("register the ledger query: %w", err)
	}
	most := in.MaxActs
	if most <= 0 {
		most = maxLedgerActs
	}
	err := workflow.Await(ctx, func() bool { return lw.acts >= most || workflow.GetInfo(ctx).GetContinueAsNewSuggested() })
	if err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	snap := lw.book.Snapshot(ledger.KeepSince(workflow.Now(ctx))) // a ledger workflow started anew keeps what a cached book keeps
	return workflow.NewContinueAsNewError(ctx, WorkflowLedger, LedgerInput{Book: &snap, Parked: slices.Sorted(maps.Keys(lw.parked)), MaxActs: in.MaxActs})
}

// ledgerWf is the ledger workflow's state: the book, and the runs a soft
// limit parked, to wake when a person approves.
type ledgerWf struct {
	book   *ledger.Book
	parked map[string]bool
	acts   int
}

func (lw *ledgerWf) apply(rec *ledger.Record) {
	lw.acts++
	if rec != nil {
		lw.book.Apply(*rec)
	}
}

func (lw *ledgerWf) reserve(ctx workflow.Context, a ReserveArgs) (ReserveReply, error) {
	now := workflow.Now(ctx)
	i, w, free := lw.book.Route(append([]budget.Key{a.Reservation.Key}, a.Fallbacks...), now)
	if !free {
		lw.acts++
		return ReserveReply{Window: &w}, nil
	}
	var reply ReserveReply
	if i > 0 {
		a.Reservation.Key = a.Fallbacks[i-1]
		reply.Window, reply.Fallback = &w, i
	}
	g, rec := lw.book.Reserve(a.Reservation, a.Caps, a.Margin, now, nil, ledger.Owner{Host: "temporal " + a.Holder})
	lw.apply(rec)
	if a.Holder != "" {
		if g.Verdict == ledger.Parked {
			lw.parked[a.Holder] = true
		} else {
			delete(lw.parked, a.Holder)
		}
	}
	reply.Grant = g
	return reply, nil
}

func (lw *ledgerWf) settle(ctx workflow.Context, a SettleArgs) error {
	lw.apply(lw.book.Settle(a.ID, a.Run, a.Key, a.Charges, workflow.Now(ctx)))
	return nil
}

// approve lets the cap's soft limit be passed for its period, and wakes the
// runs parked (each looks again: another cap may still park it).
func (lw *ledgerWf) approve(ctx workflow.Context, a ApproveArgs) (string, error) {
	period, rec := lw.book.Approve(a.Cap, a.By, workflow.Now(ctx))
	lw.apply(rec)
	for _, id := range slices.Sorted(maps.Keys(lw.parked)) {
		// A run that ended meanwhile cannot be told: nothing to do.
		workflow.SignalExternalWorkflow(ctx, id, "", SignalBudget, a.Cap.Name)
	}
	clear(lw.parked)
	return period, nil
}

func (lw *ledgerWf) window(ctx workflow.Context, a WindowArgs) error {
	lw.apply(lw.book.OpenWindow(a.Key, a.Until, a.Reason, workflow.Now(ctx)))
	return nil
}

// report is the ledger query: the book under caps, at the workflow's time
// (its last event's).
func (lw *ledgerWf) report(caps []ledger.Cap, now time.Time) (ledger.Report, error) {
	return lw.book.Report(caps, now, nil), nil
}

// LedgerClient is the ledger workflow of a namespace as its clients reach
// it: the workers' steps, and the spend and budget commands.
type LedgerClient struct {
	C client.Client
	// Queue is the task queue the ledger workflow is started on when it
	// is not running (the server's: every worker runs it).
	Queue string
}

// update sends the update name with arg and reads its answer into reply,
// starting the ledger workflow when none runs.
func (lc LedgerClient) update(ctx context.Context, name string, arg, reply any) error {
	for attempt := 0; ; attempt++ {
		h, err := lc.C.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
			WorkflowID: LedgerWorkflowID, UpdateName: name, Args: []any{arg},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		})
		if err == nil {
			err = h.Get(ctx, reply)
		}
		if _, gone := errors.AsType[*serviceerror.NotFound](err); gone && attempt < 5 {
			// None runs, or it was started anew right then.
			if _, err := lc.C.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
				ID: LedgerWorkflowID, TaskQueue: lc.Queue,
				WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
			}, WorkflowLedger, LedgerInput{}); err != nil {
				return fmt.Errorf("start the spend ledger workflow %s: %w", LedgerWorkflowID, err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("the spend ledger workflow %s: %w", LedgerWorkflowID, err)
		}
		return nil
	}
}

// Reserve asks the ledger workflow to hold a reservation.
func (lc LedgerClient) Reserve(ctx context.Context, a ReserveArgs) (ReserveReply, error) {
	var r ReserveReply
	err := lc.update(ctx, UpdateReserve, a, &r)
	return r, err
}

// SettleIn records what a reservation's iteration spent.
func (lc LedgerClient) SettleIn(ctx context.Context, a SettleArgs) error {
	return lc.update(ctx, UpdateSettle, a, nil)
}

// Approve lets cap c's soft limit be passed for its period, and says which.
func (lc LedgerClient) Approve(ctx context.Context, c ledger.Cap, by string) (string, error) {
	var period string
	err := lc.update(ctx, UpdateApprove, ApproveArgs{Cap: c, By: by}, &period)
	return period, err
}

// Window tells the ledger workflow an account is at its usage limit.
func (lc LedgerClient) Window(ctx context.Context, a WindowArgs) error {
	return lc.update(ctx, UpdateWindow, a, nil)
}

// Report is the ledger workflow's book under caps at now; an empty book when
// no ledger workflow was ever started.
func (lc LedgerClient) Report(ctx context.Context, caps []ledger.Cap, now time.Time) (ledger.Report, error) {
	v, err := lc.C.QueryWorkflow(ctx, LedgerWorkflowID, "", QueryLedger, caps, now)
	if _, none := errors.AsType[*serviceerror.NotFound](err); none {
		return ledger.NewBook(time.UTC).Report(caps, now, nil), nil
	}
	if err != nil {
		return ledger.Report{}, fmt.Errorf("ask the spend ledger workflow %s: %w", LedgerWorkflowID, err)
	}
	var r ledger.Report
	if err := v.Get(&r); err != nil {
		return ledger.Report{}, fmt.Errorf("read the spend ledger workflow's answer: %w", err)
	}
	return r, nil
}
