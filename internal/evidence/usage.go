package evidence

import (
	"math"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// Usage is what one agent run consumed. A field whose Known flag is false was not
// reported by the CLI and must be shown as "unknown", never as 0.
type Usage struct {
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	TokensKnown      bool    `json:"tokens_known"`
	CostUSD          float64 `json:"cost_usd"`
	CostKnown        bool    `json:"cost_known"`
	CostEstimated    bool    `json:"cost_estimated,omitempty"` // from the price table, not reported by the CLI
	Turns            int     `json:"turns,omitempty"`
	Model            string  `json:"model,omitempty"`
	SessionID        string  `json:"session_id,omitempty"`
}

// Cost is the cost of one iteration from its agent (and reviewer) usage and
// its wall time d.
func (u Usage) Cost(d time.Duration) budget.Cost {
	return budget.Cost{Tokens: u.TotalTokens(), TokensKnown: u.TokensKnown, CostUSD: u.CostUSD, CostKnown: u.CostKnown, Duration: d}
}

// Spent is what a run spent, from its summed usage ([Usage.Add] over the
// iterations), wall time and iteration count. Usage whose tokens or cost were
// not all reported stays marked unknown.
func (u Usage) Spent(wall time.Duration, iterations int) budget.Spent {
	return budget.Spent{Tokens: u.TotalTokens(), TokensKnown: u.TokensKnown, CostUSD: u.CostUSD, CostKnown: u.CostKnown,
		Duration: wall, Iterations: iterations}
}

// TotalTokens is the sum of every token kind (saturating, see [AddTokens]).
func (u Usage) TotalTokens() int64 {
	return AddTokens(AddTokens(u.InputTokens, u.OutputTokens), AddTokens(u.CacheReadTokens, u.CacheWriteTokens))
}

// AddTokens adds two token counts, stopping at the largest int64 instead of
// wrapping round to a negative number: the counts come from an agent's output,
// and an absurd figure must never turn into a negative spend.
func AddTokens(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// Add returns the sum of two usages. A figure stays known only when it is known
// on both sides; adding to the zero Usage (nothing recorded yet) takes the
// other's flags, so a total starts from its first part.
func (u Usage) Add(v Usage) Usage {
	if u.IsZero() {
		return v
	}
	if v.IsZero() {
		return u
	}
	out := Usage{
		InputTokens:      AddTokens(u.InputTokens, v.InputTokens),
		OutputTokens:     AddTokens(u.OutputTokens, v.OutputTokens),
		CacheReadTokens:  AddTokens(u.CacheReadTokens, v.CacheReadTokens),
		CacheWriteTokens: AddTokens(u.CacheWriteTokens, v.CacheWriteTokens),
		TokensKnown:      u.TokensKnown && v.TokensKnown,
		CostUSD:          u.CostUSD + v.CostUSD,
		CostKnown:        u.CostKnown && v.CostKnown,
		CostEstimated:    u.CostEstimated || v.CostEstimated,
		Turns:            u.Turns + v.Turns,
		Model:            v.Model,
		SessionID:        v.SessionID,
	}
	if out.Model == "" {
		out.Model = u.Model
	}
	return out
}

// IsZero reports whether nothing was recorded in u.
func (u Usage) IsZero() bool { return u == Usage{} }
