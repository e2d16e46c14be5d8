package budget

import (
	"fmt"
	"math"
	"strings"
)

// Check applies the budget rules to spend s against the token, cost and
// duration limits of l, predicting the next iteration from the per-iteration
// costs so far. The iteration limit and the failure threshold are not spend:
// the decision engine judges them itself.
func Check(l Limits, s Spent, perIteration []Cost) Verdict {
	var v Verdict
	var why []string
	rem := Unlimited()

	if l.MaxTokens > 0 {
		rem.Tokens = max(l.MaxTokens-s.Tokens, 0)
		mean, n, unknown := meanOf(perIteration, func(c Cost) (float64, bool) { return float64(c.Tokens), c.TokensKnown })
		r := judge(&v, Tokens, float64(s.Tokens), float64(l.MaxTokens), mean, n, unknown || !s.TokensKnown)
		why = append(why, r...)
	}

	if l.MaxCostUSD > 0 {
		rem.CostUSD = max(l.MaxCostUSD-s.CostUSD, 0)
		mean, n, unknown := meanOf(perIteration, func(c Cost) (float64, bool) { return c.CostUSD, c.CostKnown })
		r := judge(&v, CostUSD, s.CostUSD, l.MaxCostUSD, mean, n, unknown || !s.CostKnown)
		why = append(why, r...)
	}

	if l.MaxDuration > 0 {
		rem.Duration = max(l.MaxDuration-s.Duration, 0)
		mean, n, _ := meanOf(perIteration, func(c Cost) (float64, bool) { return float64(c.Duration), true })
		r := judge(&v, Duration, float64(s.Duration), float64(l.MaxDuration), mean, n, false)
		why = append(why, r...)
	}

	v.Remaining = rem
	v.Reason = strings.Join(why, "; ")
	return v
}

// Exhausted reports whether spend s has crossed a hard limit of l, and why: the
// rule for a budget shared by several runs (a task graph's), judged before each
// run starts. Each run's own limits are bounded by what is left of it
// ([Limits.Within]), so within a run its decider judges the rest.
func Exhausted(l Limits, s Spent) (bool, string) {
	v := Check(l, s, nil)
	if len(v.Hard) == 0 {
		return false, ""
	}
	return true, v.Reason
}

// judge applies the hard, predictive and soft rules to one resource and
// returns what to tell people. unknown means some spend was not reported: the
// spent figure is then a lower bound, still enough to prove a crossing, but
// not enough to predict.
func judge(v *Verdict, r Resource, spent, limit, mean float64, n int, unknown bool) []string {
	show := func(f float64) string { return r.Show(f, limit) }
	switch {
	case spent >= limit:
		v.Hard = append(v.Hard, r)
		return []string{fmt.Sprintf("%s: %s spent of %s", r.Word(), show(spent), show(limit))}
	case unknown:
		v.Unchecked = append(v.Unchecked, r)
		if spent >= SoftFraction*limit {
			v.Soft = append(v.Soft, r)
		}
		return []string{fmt.Sprintf("%s: some iterations did not report it; at least %s spent of %s, the next iteration cannot be predicted",
			r.Word(), show(spent), show(limit))}
	case n > 0 && limit-spent < Margin*mean:
		v.CannotAfford = append(v.CannotAfford, r)
		return []string{fmt.Sprintf("%s: %s left of %s, an iteration takes about %s (mean of %d × %.1f)",
			r.Word(), show(limit-spent), show(limit), show(mean*Margin), n, Margin)}
	case spent >= SoftFraction*limit:
		v.Soft = append(v.Soft, r)
		return []string{fmt.Sprintf("%s: %s spent of %s (%.0f%%)", r.Word(), show(spent), show(limit), 100*spent/limit)}
	}
	return nil
}

// meanOf is the mean of the known values; unknown reports whether any
// iteration's value was not known (those are left out, never taken as 0).
func meanOf(cs []Cost, get func(Cost) (float64, bool)) (mean float64, n int, unknown bool) {
	var sum float64
	for _, c := range cs {
		f, ok := get(c)
		if !ok {
			unknown = true
			continue
		}
		sum += f
		n++
	}
	if n == 0 {
		return 0, 0, unknown
	}
	return sum / float64(n), n, unknown
}

// Predict is what the next iteration is expected to cost: [Margin] × the mean
// of the iterations so far, for tokens and cost each from the iterations that
// reported it (zero, unknown, when none did). A shared ledger reserves it
// before the iteration starts.
func Predict(perIteration []Cost) Cost {
	var p Cost
	if mean, n, _ := meanOf(perIteration, func(c Cost) (float64, bool) { return c.CostUSD, c.CostKnown }); n > 0 {
		p.CostUSD, p.CostKnown = Margin*mean, true
	}
	if mean, n, _ := meanOf(perIteration, func(c Cost) (float64, bool) { return float64(c.Tokens), c.TokensKnown }); n > 0 {
		p.Tokens, p.TokensKnown = int64(math.Ceil(Margin*mean)), true
	}
	return p
}
