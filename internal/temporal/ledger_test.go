package temporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/ledger"
)

// act is one update's answer, read into a value of the type asked.
type act struct {
	res any
	err error
}

func (a *act) Accept()          {}
func (a *act) Reject(err error) { a.err = err }
func (a *act) Complete(res any, err error) {
	a.res, a.err = res, err
}

func (a *act) into(t *testing.T, v any) {
	t.Helper()
	if a.err != nil {
		t.Fatalf("update: %v", a.err)
	}
	b, err := json.Marshal(a.res)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// drive sends the ledger workflow the updates next says, one a minute of its
// time, each once the last one was answered (the test environment answers an
// update when the workflow next runs); next is given the last one's answer
// (nil first) and says false when there are no more.
func drive(env *testsuite.TestWorkflowEnvironment, most int, next func(last *act) (update string, arg any, more bool)) {
	var last *act
	done := false
	for i := range most {
		env.RegisterDelayedCallback(func() {
			if done {
				return
			}
			name, arg, more := next(last)
			if !more {
				done = true
				return
			}
			last = &act{}
			env.UpdateWorkflow(name, fmt.Sprint(i), last, arg)
		}, time.Duration(i+1)*time.Minute)
	}
}

func newLedgerEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(tlog.NewStructuredLogger(testLogger()))
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Ledger, workflow.RegisterOptions{Name: WorkflowLedger})
	env.SetStartTime(time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC))
	return env
}

// continued is the input a ledger workflow that started its history anew
// carries over.
func continued(t *testing.T, env *testsuite.TestWorkflowEnvironment) LedgerInput {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("the ledger workflow did not end its history")
	}
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("the ledger workflow ended with %v, want a continue-as-new", err)
	}
	var in LedgerInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// TestLedgerWorkflow: the ledger workflow judges reservations as the file
// ledger does (the same book): granted with what the hard cap leaves, parked
// at the soft limit, refused at the hard one; an approval lets the parked
// run go on and wakes it; a usage window holds back the account's runs; a
// settlement counts once; after its acts, the workflow starts its history
// anew with the book, which the next one judges from.
func TestLedgerWorkflow(t *testing.T) {
	env := newLedgerEnv(t)
	claude := budget.Key{Provider: "claude", Account: "claude:aa"}
	codex := budget.Key{Provider: "codex", Account: "codex:bb"}
	caps := []ledger.Cap{{Name: "day", Period: ledger.Day, SoftCostUSD: 1, MaxCostUSD: 2}}
	res := func(id string, usd float64, k budget.Key, holder string) ReserveArgs {
		return ReserveArgs{Reservation: ledger.Reservation{ID: id, Run: holder, Key: k, USD: usd}, Caps: caps, Margin: 1.2, Holder: holder}
	}
	settle := func(id string, usd float64, k budget.Key) SettleArgs {
		return SettleArgs{ID: id, Run: "r", Key: k, Charges: []ledger.Charge{{Key: k, USD: usd}}}
	}
	woken := 0
	env.OnSignalExternalWorkflow(mock.Anything, "run-b", "", SignalBudget, "day").Return(nil).Run(func(mock.Arguments) { woken++ })
	type step struct {
		name    string
		update  string
		arg     any
		verdict ledger.Verdict
		left    float64
		window  bool
	}
	steps := []step{
		{name: "room", update: UpdateReserve, arg: res("a#1", 0.6, claude, "run-a"), verdict: ledger.Granted, left: 2},
		{name: "held counts: parked at the soft limit", update: UpdateReserve, arg: res("b#1", 0.6, codex, "run-b"), verdict: ledger.Parked, left: 1.4},
		{name: "settled", update: UpdateSettle, arg: settle("a#1", 0.5, claude)},
		{name: "settled again: counted once", update: UpdateSettle, arg: settle("a#1", 0.5, claude)},
		{name: "still parked", update: UpdateReserve, arg: res("b#1", 0.6, codex, "run-b"), verdict: ledger.Parked, left: 1.5},
		{name: "approved", update: UpdateApprove, arg: ApproveArgs{Cap: caps[0], By: "ann"}},
		{name: "goes on once approved", update: UpdateReserve, arg: res("b#1", 0.6, codex, "run-b"), verdict: ledger.Granted, left: 1.5},
		{name: "hard limit refuses", update: UpdateReserve, arg: res("c#1", 1, claude, "run-c"), verdict: ledger.Refused},
		{name: "usage window", update: UpdateWindow, arg: WindowArgs{Key: claude, Until: time.Date(2026, 11, 25, 11, 0, 0, 0, time.UTC), Reason: "usage limit reached"}},
		{name: "the account waits", update: UpdateReserve, arg: res("c#2", 0.1, claude, "run-c"), window: true},
	}
	i := 0
	drive(env, len(steps)+1, func(last *act) (string, any, bool) {
		if last != nil {
			s := steps[i-1]
			switch {
			case s.update != UpdateReserve:
				if last.err != nil {
					t.Errorf("%s: %v", s.name, last.err)
				}
			case s.window:
				var r ReserveReply
				last.into(t, &r)
				if r.Window == nil || r.Window.Reason != "usage limit reached" {
					t.Errorf("%s: %+v, want the usage window", s.name, r)
				}
			default:
				var r ReserveReply
				last.into(t, &r)
				if r.Window != nil || r.Grant.Verdict != s.verdict || (s.verdict != ledger.Refused && r.Grant.LeftUSD != s.left) {
					t.Errorf("%s: %s (left %g: %s), want %s (left %g)", s.name, r.Grant.Verdict, r.Grant.LeftUSD, r.Grant.Reason, s.verdict, s.left)
				}
			}
		}
		if i == len(steps) {
			return "", nil, false
		}
		i++
		return steps[i-1].update, steps[i-1].arg, true
	})
	env.ExecuteWorkflow(WorkflowLedger, LedgerInput{MaxActs: len(steps)})
	in := continued(t, env)
	if woken != 1 {
		t.Errorf("the parked run was woken %d times, want once by the approval", woken)
	}
	if i != len(steps) {
		t.Fatalf("%d of %d updates answered", i, len(steps))
	}

	// The next history judges from the book carried over.
	env = newLedgerEnv(t)
	var report ledger.Report
	var again ReserveReply
	drive(env, 3, func(last *act) (string, any, bool) {
		if last != nil {
			// The reply is read once the next update is sent: the last one
			// ends the history.
			last.into(t, &again)
			return UpdateSettle, settle("d#1", 0.7, codex), true
		}
		v, err := env.QueryWorkflow(QueryLedger, caps, time.Date(2026, 11, 25, 10, 30, 0, 0, time.UTC))
		if err == nil {
			err = v.Get(&report)
		}
		if err != nil {
			t.Errorf("query: %v", err)
		}
		return UpdateReserve, res("d#1", 0.8, codex, "run-d"), true
	})
	in.MaxActs = 2
	env.ExecuteWorkflow(WorkflowLedger, in)
	continued(t, env)
	if c := report.Caps[0]; c.Spent.USD != 0.5 || c.HeldUSD != 0.6 || !c.Approved {
		t.Errorf("the cap reports %+v, want 0.50 spent, 0.60 held, approved", c)
	}
	if again.Grant.Verdict != ledger.Granted || math.Abs(again.Grant.LeftUSD-0.9) > 1e-9 {
		t.Errorf("after the history started anew: %s (left %g), want granted with 0.90 left (0.50 spent, 0.60 held, approved)", again.Grant.Verdict, again.Grant.LeftUSD)
	}
}

// TestLedgerWorkflowRoutesAroundAWindow: a run whose agent's account is at
// its usage limit is reserved on the first of its fallbacks whose account is
// free, charged to that account; with none free, it waits; after the reset
// it is its own agent's again.
func TestLedgerWorkflowRoutesAroundAWindow(t *testing.T) {
	env := newLedgerEnv(t)
	claude := budget.Key{Provider: "claude", Account: "claude:aa"}
	codex := budget.Key{Provider: "codex", Account: "codex:bb"}
	gemini := budget.Key{Provider: "gemini", Account: "gemini:cc"}
	res := func(id string, fallbacks ...budget.Key) ReserveArgs {
		return ReserveArgs{Reservation: ledger.Reservation{ID: id, Run: "r", Key: claude, USD: 0.1}, Fallbacks: fallbacks, Margin: 1.2, Holder: "run-a"}
	}
	// The drive sends one update a minute from 10:01; the windows end at 10:05
	// and a half (claude) and at 10:30 (codex).
	type step struct {
		name     string
		update   string
		arg      any
		fallback int  // the reply's
		wait     bool // the reply is the window, nothing reserved
	}
	steps := []step{
		{name: "claude's window", update: UpdateWindow, arg: WindowArgs{Key: claude, Until: time.Date(2026, 11, 25, 10, 5, 30, 0, time.UTC), Reason: "session limit"}},
		{name: "codex's window", update: UpdateWindow, arg: WindowArgs{Key: codex, Until: time.Date(2026, 11, 25, 10, 30, 0, 0, time.UTC), Reason: "usage limit"}},
		{name: "no fallback: waits", update: UpdateReserve, arg: res("a#1"), wait: true},
		{name: "no free fallback: waits", update: UpdateReserve, arg: res("a#1", codex), wait: true},
		{name: "the first free fallback", update: UpdateReserve, arg: res("a#1", codex, gemini), fallback: 2},
		{name: "after the reset: its own agent", update: UpdateReserve, arg: res("a#2", codex, gemini)},
	}
	i := 0
	drive(env, len(steps)+1, func(last *act) (string, any, bool) {
		if last != nil && steps[i-1].update == UpdateReserve {
			s := steps[i-1]
			var r ReserveReply
			last.into(t, &r)
			switch {
			case s.wait && (r.Window == nil || r.Fallback != 0 || r.Window.Key != claude):
				t.Errorf("%s: %+v, want claude's window to wait for", s.name, r)
			case !s.wait && (r.Fallback != s.fallback || r.Grant.Verdict != ledger.Granted):
				t.Errorf("%s: fallback %d (%s), want %d, granted", s.name, r.Fallback, r.Grant.Verdict, s.fallback)
			case s.fallback > 0 && (r.Window == nil || r.Window.Reason != "session limit"):
				t.Errorf("%s: went around %+v, want claude's window", s.name, r.Window)
			case !s.wait && s.fallback == 0 && r.Window != nil:
				t.Errorf("%s: %+v, want no window", s.name, r.Window)
			}
		} else if last != nil && last.err != nil {
			t.Errorf("%s: %v", steps[i-1].name, last.err)
		}
		if i == len(steps) {
			return "", nil, false
		}
		i++
		return steps[i-1].update, steps[i-1].arg, true
	})
	env.ExecuteWorkflow(WorkflowLedger, LedgerInput{MaxActs: len(steps)})
	in := continued(t, env)
	if i != len(steps) {
		t.Fatalf("%d of %d updates answered", i, len(steps))
	}
	// The reservation on the fallback is held on its account.
	held := ledger.Restore(*in.Book, time.UTC).OpenReservations(nil)
	var on []budget.Key
	for _, h := range held {
		on = append(on, h.Key)
	}
	if len(on) != 2 || on[0] != gemini || on[1] != claude {
		t.Errorf("held on %v, want a#1 on gemini's account and a#2 on claude's", on)
	}
}

// TestLedgerWorkflowParallelRuns: two runs reserve and settle at once,
// interleaved (both reserve, then both settle), each iteration costing more
// than it reserved (its 1.2× mean misses), until the hard cap refuses them:
// together they overshoot the cap by no more than one reservation each.
func TestLedgerWorkflowParallelRuns(t *testing.T) {
	env := newLedgerEnv(t)
	const limit = 3.0
	caps := []ledger.Cap{{Name: "day", Period: ledger.Day, MaxCostUSD: limit}}
	k := budget.Key{Provider: "claude", Account: "claude:aa"}
	// Each iteration spends 1.8 times what was reserved for it (at least 0.3).
	type run struct {
		name     string
		spent    []float64
		reserved float64 // the largest reservation
		done     bool
	}
	runs := []*run{{name: "a"}, {name: "b"}}
	predict := func(r *run) float64 {
		if len(r.spent) == 0 {
			return 0.2
		}
		mean := 0.0
		for _, s := range r.spent {
			mean += s
		}
		return 1.2 * mean / float64(len(r.spent))
	}
	type action struct {
		r      *run
		settle bool
	}
	var queue []action
	var granted []*run // of the round under way
	var doing action
	total := 0.0
	drive(env, 200, func(last *act) (string, any, bool) {
		if last != nil && !doing.settle {
			var rep ReserveReply
			last.into(t, &rep)
			if rep.Grant.Verdict == ledger.Granted {
				doing.r.reserved = max(doing.r.reserved, predict(doing.r))
				granted = append(granted, doing.r)
			} else {
				doing.r.done = true
			}
		}
		if len(queue) == 0 { // a new round: both reserve, then both settle
			for _, r := range granted {
				queue = append(queue, action{r: r, settle: true})
			}
			granted = nil
			for _, r := range runs {
				if !r.done {
					queue = append(queue, action{r: r})
				}
			}
			// settle the last round's first, then reserve again
		}
		if len(queue) == 0 {
			return "", nil, false
		}
		doing, queue = queue[0], queue[1:]
		r := doing.r
		if doing.settle {
			usd := max(1.8*predict(r), 0.3)
			id := fmt.Sprintf("%s#%d", r.name, len(r.spent)+1)
			r.spent = append(r.spent, usd)
			total += usd
			return UpdateSettle, SettleArgs{ID: id, Run: r.name, Key: k, Charges: []ledger.Charge{{Key: k, USD: usd}}}, true
		}
		id := fmt.Sprintf("%s#%d", r.name, len(r.spent)+1)
		return UpdateReserve, ReserveArgs{Reservation: ledger.Reservation{ID: id, Run: r.name, Key: k, USD: predict(r)}, Caps: caps, Holder: r.name}, true
	})
	env.RegisterDelayedCallback(env.CancelWorkflow, 201*time.Minute)
	env.ExecuteWorkflow(WorkflowLedger, LedgerInput{})
	if !runs[0].done || !runs[1].done {
		t.Fatalf("the runs did not reach the cap: %+v %+v", runs[0], runs[1])
	}
	bound := limit
	for _, r := range runs {
		bound += r.reserved
		if len(r.spent) < 2 {
			t.Errorf("run %s ran %d iterations: the test shows nothing", r.name, len(r.spent))
		}
	}
	if total <= limit {
		t.Errorf("spent %.2f in all, within the cap %.2f: the iterations' misses did not show", total, limit)
	}
	if total > bound {
		t.Errorf("spent %.2f in all under a cap of %.2f: more than one reservation each over it (bound %.2f)", total, limit, bound)
	}
	t.Logf("spent %.2f under a cap of %.2f (bound %.2f)", total, limit, bound)
}

// TestLedgerWorkflowFirstIteration: the ledger workflow predicts a first
// iteration by the book's one rule, as the file ledger does: with no
// iteration of the provider settled, the reservation's First (the activity
// sets it by ledger.FirstUSD: here a tenth of the $1 soft limit); once one
// is, 1.2 × the provider's mean. Each later grant's room shows what the
// earlier ones hold.
func TestLedgerWorkflowFirstIteration(t *testing.T) {
	env := newLedgerEnv(t)
	claude := budget.Key{Provider: "claude", Account: "claude:aa"}
	caps := []ledger.Cap{{Name: "day", Period: ledger.Day, SoftCostUSD: 1, MaxCostUSD: 2}}
	first := func(id string) ReserveArgs {
		return ReserveArgs{Reservation: ledger.Reservation{ID: id, Run: id, Key: claude, First: ledger.FirstUSD(caps, claude, 0)}, Caps: caps, Margin: 1.2, Holder: id}
	}
	steps := []struct {
		update string
		arg    any
		left   float64 // the grant's room: the cap less what was spent and what the others hold
	}{
		{UpdateReserve, first("a#1"), 2},
		{UpdateReserve, first("b#1"), 1.9}, // a#1 holds $0.10
		{UpdateSettle, SettleArgs{ID: "a#1", Run: "a", Key: claude, Charges: []ledger.Charge{{Key: claude, USD: 0.05}}}, 0},
		{UpdateReserve, first("c#1"), 1.85}, // $0.05 spent, b#1 holds $0.10
		{UpdateReserve, first("d#1"), 1.79}, // and c#1 1.2 × $0.05
		// The last update's answer is read when the next is sent: one more.
		{UpdateSettle, SettleArgs{ID: "b#1", Run: "b", Key: claude, Charges: []ledger.Charge{{Key: claude, USD: 0.05}}}, 0},
	}
	i := 0
	drive(env, len(steps)+1, func(last *act) (string, any, bool) {
		if last != nil && steps[i-1].update == UpdateReserve {
			var r ReserveReply
			last.into(t, &r)
			if r.Grant.Verdict != ledger.Granted || math.Abs(r.Grant.LeftUSD-steps[i-1].left) > 1e-9 {
				t.Errorf("reservation %d: %s (left %g: %s), want granted with %g left", i, r.Grant.Verdict, r.Grant.LeftUSD, r.Grant.Reason, steps[i-1].left)
			}
		}
		if i == len(steps) {
			return "", nil, false
		}
		i++
		return steps[i-1].update, steps[i-1].arg, true
	})
	env.ExecuteWorkflow(WorkflowLedger, LedgerInput{MaxActs: len(steps)})
	continued(t, env)
	if i != len(steps) {
		t.Fatalf("%d of %d updates answered", i, len(steps))
	}
}
