package budget

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Word is the resource's name in a sentence for people: "cost", "tokens",
// "time".
func (r Resource) Word() string {
	if r == Duration {
		return "time"
	}
	return string(r)
}

// Show says an amount of the resource in plain words — money as dollars, time
// as a duration, tokens counted — as precisely as limit needs, so that an
// amount and the limit it is judged against read alike: "$0.020" of
// "$0.012", "8.5s" of "8s", "12,345" tokens of "10,000". Durations are in
// nanoseconds.
func (r Resource) Show(amount, limit float64) string {
	switch r {
	case CostUSD:
		return "$" + strconv.FormatFloat(amount, 'f', moneyDecimals(limit), 64)
	case Duration:
		return showDuration(time.Duration(amount), time.Duration(limit))
	}
	return Thousands(int64(math.Round(amount)))
}

// moneyDecimals is how many decimals show limit exactly: 2 for whole cents,
// up to 4 for a limit of a fraction of a cent.
func moneyDecimals(limit float64) int {
	for d := 2; d < 4; d++ {
		p := math.Pow(10, float64(d))
		if math.Abs(limit*p-math.Round(limit*p)) < 1e-6 {
			return d
		}
	}
	return 4
}

// showDuration rounds d to the precision limit is given in (a second, else
// a tenth or a millisecond).
func showDuration(d, limit time.Duration) string {
	unit := time.Second
	switch {
	case limit%time.Second == 0 && limit >= time.Second:
	case limit%(100*time.Millisecond) == 0:
		unit = 100 * time.Millisecond
	default:
		unit = time.Millisecond
	}
	if d > time.Second && unit < time.Second && d.Round(unit)%time.Second != 0 {
		return d.Round(unit).String()
	}
	if d < unit {
		unit = time.Millisecond
	}
	return d.Round(unit).String()
}

// Thousands writes n with commas between groups of three digits ("12,345"),
// as [Resource.Show] says an amount of tokens.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Spending says what was spent of a limit in one phrase: "cost: $0.020 of
// $0.012".
func (r Resource) Spending(spent, limit float64) string {
	return fmt.Sprintf("%s: %s of %s", r.Word(), r.Show(spent, limit), r.Show(limit, limit))
}
