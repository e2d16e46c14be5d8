package ledger

import (
	"fmt"
	"math"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// Verdict is the answer to a reservation.
type Verdict int

// The verdicts of [Book.Judge].
const (
	Granted Verdict = iota // the iteration may start
	Parked                 // a soft limit: the iteration waits until a person approves the cap
	Refused                // a hard limit: the loop stops
)

func (v Verdict) String() string {
	switch v {
	case Parked:
		return "parked"
	case Refused:
		return "refused"
	}
	return "granted"
}

// Grant is the ledger's answer to a reservation.
type Grant struct {
	Verdict Verdict
	Cap     Cap    // the cap that parked or refused it
	Period  string // that cap's period ("2026-11-25")
	Reason  string // one line for people
	// LeftUSD and LeftTokens are the most the iteration may spend under the
	// hard caps it falls under, once what the others spent and hold is
	// counted: the agent is ended when its live usage crosses them. -1: no
	// such cap.
	LeftUSD    float64
	LeftTokens int64
}

// Judge answers a reservation of usd and tokens charged to k at now against
// caps: refused when a hard limit would be crossed, parked when a soft limit
// would be and no person approved it for the period, else granted. Open
// reservations count when alive (nil: all) says their process runs; skip is
// the reservation's own id (a reservation made again).
func (b *Book) Judge(caps []Cap, k budget.Key, usd float64, tokens int64, now time.Time, alive func(Owner) bool, skip string) Grant {
	g := Grant{LeftUSD: -1, LeftTokens: -1}
	var parked *Grant
	for _, c := range caps {
		if !c.Matches(k) {
			continue
		}
		s := b.Spent(c, now)
		rusd, rtok := b.Reserved(c, alive, skip)
		cusd, ctok := s.USD+rusd, s.Tokens+rtok
		period := c.Period.Of(now.In(b.loc))
		if c.MaxCostUSD > 0 {
			left := math.Max(c.MaxCostUSD-cusd, 0)
			if g.LeftUSD < 0 || left < g.LeftUSD {
				g.LeftUSD = left
			}
			if reaches(cusd, c.MaxCostUSD) || exceeds(cusd+usd, c.MaxCostUSD) {
				return refuse(c, period, money(c, s.USD, rusd, usd, c.MaxCostUSD, "the limit"))
			}
		}
		if c.MaxTokens > 0 {
			left := max(c.MaxTokens-ctok, 0)
			if g.LeftTokens < 0 || left < g.LeftTokens {
				g.LeftTokens = left
			}
			if ctok >= c.MaxTokens || ctok+tokens > c.MaxTokens {
				return refuse(c, period, count(c, s.Tokens, rtok, tokens, c.MaxTokens, "the limit"))
			}
		}
		if parked != nil || b.Approved(c, now) {
			continue
		}
		switch {
		case c.SoftCostUSD > 0 && (reaches(cusd, c.SoftCostUSD) || exceeds(cusd+usd, c.SoftCostUSD)):
			parked = &Grant{Verdict: Parked, Cap: c, Period: period, Reason: money(c, s.USD, rusd, usd, c.SoftCostUSD, "the soft limit")}
		case c.SoftTokens > 0 && (ctok >= c.SoftTokens || ctok+tokens > c.SoftTokens):
			parked = &Grant{Verdict: Parked, Cap: c, Period: period, Reason: count(c, s.Tokens, rtok, tokens, c.SoftTokens, "the soft limit")}
		}
	}
	if parked != nil {
		parked.LeftUSD, parked.LeftTokens = g.LeftUSD, g.LeftTokens
		return *parked
	}
	return g
}

// usdEps is how far apart two sums of dollars may be and still be equal:
// float sums carry rounding (ten $0.03 add up to $0.30000000000000004), and
// no price is finer than a millionth of a cent.
const usdEps = 1e-8

// reaches reports whether usd is at limit or above; exceeds, above it.
func reaches(usd, limit float64) bool { return usd >= limit-usdEps }
func exceeds(usd, limit float64) bool { return usd > limit+usdEps }

func refuse(c Cap, period, reason string) Grant {
	return Grant{Verdict: Refused, Cap: c, Period: period, Reason: reason, LeftUSD: 0, LeftTokens: 0}
}

// money says where a cost cap stands: "cap day (all spend): $4.20 spent and
// $0.60 reserved by other loops of $5.00 today; the next iteration needs
// about $0.50".
func money(c Cap, spent, reserved, need, limit float64, which string) string {
	show := func(f float64) string { return budget.CostUSD.Show(f, limit) }
	return fmt.Sprintf("cap %s (%s): %s spent and %s held by running iterations, of %s %s %s; the next iteration needs about %s",
		c.Name, c.Covers(), show(spent), show(reserved), which, show(limit), c.Period.Word(), show(need))
}

func count(c Cap, spent, reserved, need, limit int64, which string) string {
	show := func(n int64) string { return budget.Tokens.Show(float64(n), float64(limit)) }
	return fmt.Sprintf("cap %s (%s): %s tokens spent and %s held by running iterations, of %s %s %s; the next iteration needs about %s",
		c.Name, c.Covers(), show(spent), show(reserved), which, show(limit), c.Period.Word(), show(need))
}
