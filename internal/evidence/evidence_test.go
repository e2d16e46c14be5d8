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
