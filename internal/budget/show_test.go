package budget

import (
	"testing"
	"time"
)

func TestShow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r             Resource
		amount, limit float64
		want          string
	}{
		{CostUSD, 0.02, 0.012, "$0.020"},
		{CostUSD, 0.012, 0.012, "$0.012"},
		{CostUSD, 5, 5, "$5.00"},
		{CostUSD, 4.999, 5, "$5.00"},
		{CostUSD, 0.00016, 0.0001, "$0.0002"},
		{CostUSD, 12.3456, 20, "$12.35"},
		{Duration, float64(8500 * time.Millisecond), float64(8 * time.Second), "9s"},
		{Duration, float64(17950 * time.Millisecond), float64(8 * time.Second), "18s"},
		{Duration, float64(8450 * time.Millisecond), float64(8500 * time.Millisecond), "8.5s"},
		{Duration, float64(30 * time.Minute), float64(30 * time.Minute), "30m0s"},
		{Duration, float64(40 * time.Millisecond), float64(8 * time.Second), "40ms"},
		{Tokens, 1234567, 2000000, "1,234,567"},
		{Tokens, 999, 1000, "999"},
	} {
		if got := tc.r.Show(tc.amount, tc.limit); got != tc.want {
			t.Errorf("%s.Show(%v, %v) = %q, want %q", tc.r, tc.amount, tc.limit, got, tc.want)
		}
	}
	if got := CostUSD.Spending(0.02, 0.012); got != "cost: $0.020 of $0.012" {
		t.Errorf("Spending = %q", got)
	}
}
