package report

import "testing"

func TestChartMoneyTicks(t *testing.T) {
	t.Parallel()
	// The cost axis of a run spending about a cent an attempt: distinct ticks.
	top, ticks := axis(0.012, false)
	seen := map[string]bool{}
	for i := 0; i <= ticks; i++ {
		s := chartMoney(top * float64(i) / float64(ticks))
		if seen[s] {
			t.Errorf("tick %q twice on an axis to %g in %d steps", s, top, ticks)
		}
		seen[s] = true
	}
	for v, want := range map[float64]string{0: "$0.00", 0.0025: "$0.0025", 0.1: "$0.10", 0.0123456: "$0.0123", 2.5: "$2.50", 12.345: "$12.35"} {
		if got := chartMoney(v); got != want {
			t.Errorf("chartMoney(%g) = %q, want %q", v, got, want)
		}
	}
}
