package ledger

import (
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// Reserve holds r's predicted cost when caps allow it, and says so. A
// reservation that is not granted holds nothing. A first iteration (r.USD 0)
// reserves [Book.FirstCost]. The reservation is appended without a sync of
// its own: every process counts it at once, and the settlement's sync makes
// it durable (see update for why that is enough).
func (l *Ledger) Reserve(r Reservation, caps []Cap, margin float64) (Grant, error) {
	var g Grant
	err := l.update(func(b *Book, now time.Time) []Record {
		var rec *Record
		g, rec = b.Reserve(r, caps, margin, now, l.alive, l.me)
		return one(rec)
	}, syncLater) // see update: the settlement's sync makes it durable
	return g, err
}

// one is the records to append: rec, if any.
func one(rec *Record) []Record {
	if rec == nil {
		return nil
	}
	return []Record{*rec}
}

// Settle records what the reservation id's iteration spent, charge by
// charge. A reservation is settled once: settling it again changes nothing.
// The record is synced before Settle returns, or within [Ledger.SyncWithin].
func (l *Ledger) Settle(id, run string, k budget.Key, charges []Charge) error {
	return l.update(func(b *Book, now time.Time) []Record { return one(b.Settle(id, run, k, charges, now)) }, syncSoon)
}

// Approve lets the soft limit of cap be passed for the period holding now.
func (l *Ledger) Approve(c Cap, by string) (period string, err error) {
	err = l.update(func(b *Book, now time.Time) []Record {
		var rec *Record
		period, rec = b.Approve(c, by, now)
		return one(rec)
	}, syncNow)
	return period, err
}

// OpenWindow records that k's account hit its usage limit until until.
func (l *Ledger) OpenWindow(k budget.Key, until time.Time, reason string) error {
	return l.update(func(b *Book, now time.Time) []Record { return one(b.OpenWindow(k, until, reason, now)) }, syncNow)
}

// View reads the ledger and calls fn with its book (read only) and the time,
// under the lock.
func (l *Ledger) View(fn func(b *Book, now time.Time)) error {
	return l.update(func(b *Book, now time.Time) []Record {
		fn(b, now)
		return nil
	}, syncLater)
}

// IsAlive reports whether a reservation's owner still runs, as the ledger
// judges it.
func (l *Ledger) IsAlive(o Owner) bool { return l.alive(o) }
