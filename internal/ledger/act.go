package ledger

import (
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// The acts on the book: each judges against the book at now and says the
// record to append (nil: nothing to record). The file ledger ([Ledger])
// appends them under its lock; the Temporal engine's ledger workflow applies
// them in its history. Both then fold the record in with [Book.Apply].

// Reserve judges r against caps at now and, granted, is the reservation's
// record, held by owner. A first iteration (r.USD 0) reserves
// [Book.FirstCost]: the mean of its provider's recent iterations × margin,
// else r.First. alive and r.ID are as for [Book.Judge].
func (b *Book) Reserve(r Reservation, caps []Cap, margin float64, now time.Time, alive func(Owner) bool, owner Owner) (Grant, *Record) {
	fromLedger := true
	if r.USD <= 0 {
		r.USD, fromLedger = b.FirstCost(r.Key.Provider, r.First, margin)
	}
	g := b.Judge(caps, r.Key, r.USD, r.Tokens, now, alive, r.ID)
	if g.Verdict != Granted {
		if !fromLedger && r.USD > 0 {
			g.Reason += fmt.Sprintf("; the ledger holds no iteration of %s yet, so a first one reserves %s (budgets: first_iteration_usd, else a tenth of the tightest cap, at most %s)",
				r.Key.Provider, budget.CostUSD.Show(r.USD, r.USD), budget.CostUSD.Show(DefaultFirstUSD, DefaultFirstUSD))
		}
		return g, nil
	}
	return g, &Record{Kind: KindReserve, ID: r.ID, At: now.UTC(), Run: r.Run, Graph: r.Graph, Key: r.Key, USD: r.USD, Tokens: r.Tokens, Owner: &owner}
}

// Settle is the record of what the reservation id's iteration spent, charge
// by charge; nil when it was settled already.
func (b *Book) Settle(id, run string, k budget.Key, charges []Charge, now time.Time) *Record {
	if b.IsSettled(id) {
		return nil
	}
	return &Record{Kind: KindSettle, ID: id, At: now.UTC(), Run: run, Key: k, Charges: charges}
}

// IsSettled reports whether the reservation id was settled.
func (b *Book) IsSettled(id string) bool {
	_, ok := b.settled[id]
	return ok
}

// Approve is the record that lets the soft limit of c be passed for the
// period holding now, and that period's name; nil when it was approved
// already.
func (b *Book) Approve(c Cap, by string, now time.Time) (period string, rec *Record) {
	period = c.Period.Of(now.In(b.loc))
	if b.Approved(c, now) {
		return period, nil
	}
	return period, &Record{Kind: KindApprove, At: now.UTC(), Cap: c.Name, Period: period, By: by}
}

// OpenWindow is the record that k's account is at its usage limit until
// until; nil when a window open at now reaches as far already.
func (b *Book) OpenWindow(k budget.Key, until time.Time, reason string, now time.Time) *Record {
	if w, ok := b.WindowOf(k, now); ok && !until.After(w.Until) {
		return nil
	}
	return &Record{Kind: KindWindow, At: now.UTC(), Key: budget.Key{Provider: k.Provider, Account: k.Account}, Until: until.UTC(), Reason: reason}
}
