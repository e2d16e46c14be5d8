package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// SharedSpend is the spend a run shares with every other loop of the user:
// the ledger, the caps, and who each of the run's agents charges.
type SharedSpend struct {
	// Path is the ledger file, opened at the first reservation (Ledger,
	// when set, is used instead).
	Path   string
	Ledger *ledger.Ledger
	Caps   []ledger.Cap
	// Config names the configuration that holds the caps, for the message
	// that says how to raise one.
	Config string
	// Run names the run for people reading the ledger ("/repo NAME");
	// Graph, the task graph it is a task of ("" none).
	Run   string
	Graph string
	// Keys are who each agent charges, by name ("" the configured agent);
	// Reviewer is the reviewer's.
	Keys     map[string]budget.Key
	Reviewer budget.Key
	// Poll is how often a parked loop looks at the ledger again (0: 5s).
	Poll time.Duration
	// First is budgets: first_iteration_usd (0: not given), what a first
	// iteration reserves when the ledger knows no cost of its provider
	// ([ledger.FirstUSD]).
	First float64
	// Journal, when set, is where the run's iterations are settled and its
	// accounts' usage windows told instead of Ledger: the Temporal engine's
	// ledger workflow, which reserved the iteration ([Local.Hold]).
	Journal Journal
	// Optional: the ledger is kept by default, not asked for (no budgets:
	// section, no cap): one that cannot be opened is said once and the run
	// goes on without it, instead of stopping.
	Optional bool
}

// Journal is where a run's spend is settled and its usage windows told: the
// file ledger, or the Temporal engine's ledger workflow.
type Journal interface {
	Settle(id, run string, k budget.Key, charges []ledger.Charge) error
	OpenWindow(k budget.Key, until time.Time, reason string) error
}

// journal is where s settles and tells windows.
func (s *SharedSpend) journal() Journal {
	if s.Journal != nil {
		return s.Journal
	}
	if s.Ledger == nil {
		return nil
	}
	return s.Ledger
}

// Hold is the reservation id, held elsewhere (the Temporal engine's ledger
// workflow) for the next iteration charged to k: the iteration runs on the
// fallback agent the ledger routed it to ("": the agent it asks for), is
// bounded by what it left under the hard caps (-1: no such cap) and settled
// with what it spent, in l.Spend's journal.
func (l *Local) Hold(id, fallback string, k budget.Key, leftUSD float64, leftTokens int64) {
	l.held = &held{id: id, key: k, leftUSD: leftUSD, leftTokens: leftTokens}
	l.switchTo = fallback
}

// open opens the ledger at the first need.
func (s *SharedSpend) open() error {
	if s.Ledger != nil {
		return nil
	}
	lg, err := ledger.Open(s.Path, nil)
	if err != nil {
		return fmt.Errorf("%w: every loop keeps its spend in this ledger; give it a place you can write with budgets: {ledger: PATH} in your configuration, or keep none with budgets: {ledger: off}", err)
	}
	if s.Optional {
		lg.SyncWithin = optionalSyncWithin
	}
	lg.Cached = true // a run judges reservations and windows, of periods not over: it need not read the ledger whole
	s.Ledger = lg
	return nil
}

// optionalSyncWithin is how long the settlement of a run that keeps the
// ledger without asking for it (no budgets) may wait for its sync
// ([ledger.Ledger.SyncWithin]): an agent's iteration takes longer, so each is
// still synced at once, and a loop of short ones syncs the ledger about once
// a second, not once an iteration.
const optionalSyncWithin = time.Second

// Routes are the agents iteration r asking for r.Agent ("" the configured
// one) may run on, in order, and the key each charges: the agent asked for
// and, when that is the configured one and r awaits no reset of its usage
// limit, its fallbacks. The ledger says which
// runs it ([ledger.Book.Route]): the first whose account is not at its usage
// limit. Both engines route by it.
func Routes(r loop.StepRequest, fallbacks []string, keys map[string]budget.Key) (names []string, ks []budget.Key) {
	agent := r.Agent
	names = []string{agent}
	if agent == "" && r.AwaitReset.IsZero() {
		names = append(names, fallbacks...)
	}
	for _, n := range names {
		ks = append(ks, keyOf(keys, n))
	}
	return names, ks
}

// OnFallback says that a loop runs on the fallback agent fb while w, the
// usage window of its agent's account, is open (until: its reset, as the
// reader's clock says it).
func OnFallback(w ledger.Window, until, fb string) string {
	return fmt.Sprintf("the %s account %s is at its usage limit until %s (%s): the loop runs on the fallback agent %s until then, and back after the reset",
		w.Key.Provider, w.Key.Account, until, cmp.Or(w.Reason, "as its CLI said"), fb)
}

// WaitsForReset says that a loop waits for the reset of w, the usage window
// of its agent's account (until: the reset, as the reader's clock says it).
func WaitsForReset(w ledger.Window, until string) string {
	return fmt.Sprintf("the %s account %s is at its usage limit until %s (%s): every loop on it waits for the reset; the wait is not an iteration, not a failure and not billed time",
		w.Key.Provider, w.Key.Account, until, cmp.Or(w.Reason, "as its CLI said"))
}

// shareWindow tells every loop on agent's account that it is at its usage
// limit until until, as the CLI said: they wait for the reset (or move to a
// fallback) before their next iteration instead of running into it.
func (l *Local) shareWindow(agent string, until time.Time, reason string) {
	if l.Spend == nil || until.IsZero() || !until.After(l.Now()) {
		return
	}
	if l.Spend.Journal == nil {
		if err := l.Spend.open(); err != nil {
			l.warn("the usage limit of %s is not shared with your other loops: %v", agent, err)
			return
		}
	}
	if err := l.Spend.journal().OpenWindow(l.Spend.key(agent), until, reason); err != nil {
		l.warn("the usage limit of %s is not shared with your other loops: %v", agent, err)
	}
}

// when says a reset time: its clock time when it is today, else its date too.
func (l *Local) when(t time.Time) string {
	t = t.Local()
	if t.Format(time.DateOnly) == l.Now().Local().Format(time.DateOnly) {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04")
}

// held is the reservation of the iteration about to run.
type held struct {
	id         string
	key        budget.Key
	leftUSD    float64
	leftTokens int64
}

func (s *SharedSpend) key(agent string) budget.Key { return keyOf(s.Keys, agent) }

// keyOf is the key agent charges: its own, else the configured agent's.
func keyOf(keys map[string]budget.Key, agent string) budget.Key {
	if k, ok := keys[agent]; ok {
		return k
	}
	return keys[""]
}

// reservationID is attempt seq's reservation: unique to the run's folder.
func (l *Local) reservationID(seq int) string {
	h := sha256.Sum256([]byte(l.RunDir))
	return fmt.Sprintf("%s#%d", hex.EncodeToString(h[:8]), seq)
}

// reserve holds the next iteration's predicted cost in the shared ledger. It
// waits while the account is in a usage window or a soft limit parks the
// loop (a needs-you record says how to approve), and stops the run at a hard
// limit. The wait is no iteration's and no failure.
func (l *Local) reserve(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	s := l.Spend
	res := state.StepResult{Started: l.Now()}
	if s == nil {
		res.Finished = res.Started
		return res, nil
	}

	poll := s.Poll
	if poll <= 0 {
		poll = 5 * time.Second
	}
	if err := s.open(); err != nil {
		if !s.Optional {
			return res, err
		}
		l.warn("this run's spend is not recorded: %v", err)
		l.Spend = nil
		res.Finished = l.Now()
		return res, nil
	}
	names, keys := Routes(r, l.RateLimit.Fallback, s.Keys)
	rs := ledger.Reservation{ID: l.reservationID(r.Seq), Run: s.Run, Graph: s.Graph}
	if r.Reserve.CostKnown {
		rs.USD = r.Reserve.CostUSD
	}
	if r.Reserve.TokensKnown {
		rs.Tokens = r.Reserve.Tokens
	}
	var toldWindow time.Time
	toldPark := ""
	for {
		var i int
		var w ledger.Window
		var free bool
		if err := s.Ledger.View(func(b *ledger.Book, now time.Time) { i, w, free = b.Route(keys, now) }); err != nil {
			return res, err
		}
		if r.Agent == "" {
			if i > 0 && l.switchTo != names[i] {
				l.warn("%s", OnFallback(w, l.when(w.Until), names[i]))
			}
			l.switchTo, l.switchFor, l.switchUntil = names[i], "", time.Time{}
			if i > 0 {
				l.switchFor, l.switchUntil = w.Key.Provider, w.Until
			}
		}
		k := keys[i]
		rs.Key = k
		if !free {
			if !w.Until.Equal(toldWindow) {
				toldWindow = w.Until
				l.warn("%s", WaitsForReset(w, l.when(w.Until)))
			}
			l.phase("usage limit: waiting until " + l.when(w.Until))
			if err := l.sleep(ctx, min(max(w.Until.Sub(l.Now()), time.Second), poll)); err != nil {
				return res, err
			}
			continue
		}
		rs.First = ledger.FirstUSD(s.Caps, rs.Key, s.First)
		g, err := s.Ledger.Reserve(rs, s.Caps, budget.Margin)
		if err != nil {
			return res, err
		}
		switch g.Verdict {
		case ledger.Granted:
			l.held = &held{id: rs.ID, key: k, leftUSD: g.LeftUSD, leftTokens: g.LeftTokens}
			res.Finished = l.Now()
			return res, nil
		case ledger.Refused:
			return res, &loop.StopError{Status: state.StatusAborted, Reason: "budget: " + g.Reason}
		}
		if toldPark != g.Cap.Name+" "+g.Period {
			toldPark = g.Cap.Name + " " + g.Period
			l.warn("parked before iteration %d: %s; this loop and every other under the cap wait until you approve: agentloop budget approve %s",
				r.Iteration, g.Reason, g.Cap.Name)
			_ = l.Emit(ctx, state.Event{Data: state.NeedsYou{NeedsYou: l.parked(g)}})
		}
		l.phase("parked: cap " + g.Cap.Name + " at its soft limit; agentloop budget approve " + g.Cap.Name)
		if err := l.sleep(ctx, poll); err != nil {
			return res, err
		}
	}
}

// parked is the needs-you record of a loop a soft limit parked.
func (l *Local) parked(g ledger.Grant) decision.NeedsYou {
	return Parked(l.Name, l.Spend.Config, "", g)
}

// Parked is the needs-you record of run, parked by a soft limit of the caps
// in config ("": the user's configuration); reach is what its commands need
// after them to reach the run's engine ("--engine temporal …", "" local).
func Parked(run, config, reach string, g ledger.Grant) decision.NeedsYou {
	where := "budgets: in your configuration"
	if config != "" {
		where = "budgets: in " + config
	}
	with := func(cmd string) string { return strings.TrimSpace(cmd + " " + reach) }
	return decision.NeedsYou{
		Kind: decision.NeedsBudget, Run: run,
		Question: fmt.Sprintf("The spend of every loop of yours reached the soft limit of cap %s %s. Let the loops go on?", g.Cap.Name, g.Cap.Period.Word()),
		Evidence: g.Reason + "; the loops it covers are parked, not stopped",
		Options: []decision.Answer{
			{Label: "Approve", TradeOff: "every loop under the cap goes on up to its hard limit, " + g.Cap.Period.Word(), Command: with("agentloop budget approve " + g.Cap.Name)},
			{Label: "Raise the soft limit", TradeOff: "parked loops go on at their next look", Command: "edit soft_cost_usd of cap " + g.Cap.Name + " under " + where},
			{Label: "Stop", TradeOff: "the run ends interrupted; resume it later", Command: stopCommand(run, reach)},
		},
	}
}

// stopCommand is how a person stops a parked run.
func stopCommand(run, reach string) string {
	if reach == "" {
		return "Ctrl-C, or agentloop stop " + run
	}
	return "agentloop stop " + run + " --now " + reach
}

func (l *Local) sleep(ctx context.Context, d time.Duration) error {
	if l.Sleep != nil {
		return l.Sleep(ctx, d)
	}
	return SleepContext(ctx, d)
}

// withinHeld bounds what the iteration may spend by what its reservation
// left it under the shared caps.
func (l *Local) withinHeld(r budget.Remaining) budget.Remaining {
	h := l.held
	if h == nil {
		return r
	}
	if h.leftUSD >= 0 && (r.CostUSD < 0 || h.leftUSD < r.CostUSD) {
		r.CostUSD = h.leftUSD
	}
	if h.leftTokens >= 0 && (r.Tokens < 0 || h.leftTokens < r.Tokens) {
		r.Tokens = h.leftTokens
	}
	return r
}

// settle records in the shared ledger what the iteration held spent: its
// agent (the fallback that ran, if one did) and its reviewer, each charged to
// its own key. A figure the agent did not report is charged as estimated,
// at what was held for it.
func (l *Local) settle(it evidence.Iteration) {
	h := l.held
	l.held = nil
	if h == nil || l.Spend == nil || l.Spend.journal() == nil {
		return
	}
	if err := l.Spend.journal().Settle(h.id, l.Spend.Run, h.key, l.charges(it, h.key)); err != nil {
		l.warn("the spend of this iteration is not in the shared ledger: %v", err)
	}
}

// charges are what an iteration's agent and reviewer spent, by key.
func (l *Local) charges(it evidence.Iteration, k budget.Key) []ledger.Charge {
	if it.Agent.Agent != "" {
		if fk, ok := l.Spend.Keys[it.Agent.Agent]; ok {
			k = fk
		}
	}
	out := []ledger.Charge{charge(k, it.Agent.Usage)}
	if it.Review != nil {
		out = append(out, charge(l.Spend.Reviewer, it.Review.Usage))
	}
	return out
}

func charge(k budget.Key, u evidence.Usage) ledger.Charge {
	if u.Model != "" {
		k.Model = u.Model
	}
	return ledger.Charge{Key: k, USD: u.CostUSD, Tokens: u.TotalTokens(), Estimated: !u.CostKnown}
}

// settleCut records what attempts an earlier session left cut (a crash, a
// kill) spent, as far as their transcripts tell: their reservations were
// never settled. An attempt settled already is not counted again.
func (l *Local) settleCut(cut []state.Interrupted) {
	if l.Spend == nil || len(cut) == 0 {
		return
	}
	if err := l.Spend.open(); err != nil {
		l.warn("the spend of the cut attempts is not in the shared ledger: %v", err)
		return
	}
	for _, c := range cut {
		k := l.Spend.key("")
		charges := []ledger.Charge{charge(k, c.Usage)}
		if c.Reviewer != (evidence.Usage{}) {
			charges = append(charges, charge(l.Spend.Reviewer, c.Reviewer))
		}
		if err := l.Spend.Ledger.Settle(l.reservationID(c.Seq), l.Spend.Run, k, charges); err != nil {
			l.warn("the spend of the cut attempt %d is not in the shared ledger: %v", c.Seq, err)
		}
	}
}
