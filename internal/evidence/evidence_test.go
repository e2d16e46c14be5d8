package evidence

import "testing"

func TestUsageAddKeepsUnknownUnknown(t *testing.T) {
	t.Parallel()
	known := Usage{InputTokens: 10, TokensKnown: true, CostUSD: 1, CostKnown: true}
	unknown := Usage{Turns: 1}
	tests := []struct {
		name         string
		a, b         Usage
		tokens, cost bool
		wantInput    int64
	}{
		{"zero plus known", Usage{}, known, true, true, 10},
		{"known plus zero", known, Usage{}, true, true, 10},
		{"known plus known", known, known, true, true, 20},
		{"known plus unknown", known, unknown, false, false, 10},
		{"unknown plus known", unknown, known, false, false, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.a.Add(tt.b)
			if got.TokensKnown != tt.tokens || got.CostKnown != tt.cost || got.InputTokens != tt.wantInput {
				t.Errorf("Add = %+v, want tokens known %v, cost known %v, input %d", got, tt.tokens, tt.cost, tt.wantInput)
			}
		})
	}
}

func TestAddTokensSaturates(t *testing.T) {
	t.Parallel()
	const maxI, minI = int64(1<<63 - 1), int64(-1 << 63)
	tests := []struct{ a, b, want int64 }{
		{1, 2, 3},
		{maxI, 1, maxI},
		{maxI, maxI, maxI},
		{minI, -1, minI},
		{maxI, -1, maxI - 1},
		{0, 0, 0},
	}
	for _, tt := range tests {
		if got := AddTokens(tt.a, tt.b); got != tt.want {
			t.Errorf("AddTokens(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	u := Usage{InputTokens: maxI, OutputTokens: maxI, TokensKnown: true}
	if got := u.TotalTokens(); got != maxI {
		t.Errorf("TotalTokens of two huge counts = %d, want %d", got, maxI)
	}
	if got := u.Add(u).InputTokens; got != maxI {
		t.Errorf("Add of two huge counts = %d, want %d", got, maxI)
	}
}
