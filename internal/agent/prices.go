package agent

import (
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input      float64 `json:"input" yaml:"input"`
	Output     float64 `json:"output" yaml:"output"`
	CacheRead  float64 `json:"cache_read" yaml:"cache_read"`
	CacheWrite float64 `json:"cache_write" yaml:"cache_write"`
}

// Prices is a price table: entries by model name (or name prefix, the longest
// prefix wins) and a default for models not listed.
type Prices struct {
	Models  map[string]Price `json:"models,omitempty" yaml:"models,omitempty"`
	Default Price            `json:"default" yaml:"default"`
}

// DefaultPrices returns the built-in table (list prices, mid 2026; configuration
// may override any entry). The default is Sonnet's price, a middle estimate.
func DefaultPrices() Prices {
	return Prices{
		Models: map[string]Price{
			"claude-opus-4-5":       {5, 25, 0.5, 6.25},
			"claude-opus-4-6":       {5, 25, 0.5, 6.25},
			"claude-opus-4-7":       {5, 25, 0.5, 6.25},
			"claude-opus-4":         {15, 75, 1.5, 18.75},
			"claude-sonnet-4":       {3, 15, 0.3, 3.75},
			"claude-haiku-4-5":      {1, 5, 0.1, 1.25},
			"claude-3-5-haiku":      {0.8, 4, 0.08, 1},
			"gpt-5":                 {1.25, 10, 0.125, 0},
			"gpt-5-codex":           {1.25, 10, 0.125, 0},
			"gpt-5-mini":            {0.25, 2, 0.025, 0},
			"gpt-5-nano":            {0.05, 0.4, 0.005, 0},
			"gpt-4.1":               {2, 8, 0.5, 0},
			"o3":                    {2, 8, 0.5, 0},
			"o4-mini":               {1.1, 4.4, 0.275, 0},
			"gemini-2.5-pro":        {1.25, 10, 0.3125, 0},
			"gemini-2.5-flash":      {0.3, 2.5, 0.075, 0},
			"gemini-3-pro":          {2, 12, 0.2, 0},
			"gemini-2.0-flash":      {0.1, 0.4, 0.025, 0},
			"gemini-2.5-flash-lite": {0.1, 0.4, 0.025, 0},
		},
		Default: Price{3, 15, 0.3, 3.75},
	}
}

// For returns the price of model: an exact entry, else the longest entry that
// is a prefix of it, else the default (found is then false). Names are matched
// without a provider prefix ("anthropic/") or a bracketed suffix ("[1m]").
func (t Prices) For(model string) (price Price, found bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.IndexByte(m, '['); i >= 0 {
		m = m[:i]
	}
	if p, ok := t.Models[m]; ok && m != "" {
		return p, true
	}
	best := ""
	for k := range t.Models {
		if strings.HasPrefix(m, strings.ToLower(k)) && len(k) > len(best) {
			best = k
		}
	}
	if best != "" {
		return t.Models[best], true
	}
	return t.Default, false
}

// Estimate returns u with a cost computed from the table when the CLI reported
// none, marked CostEstimated. A reported cost is kept; with unknown tokens the
// cost stays unknown.
func Estimate(u evidence.Usage, table Prices) evidence.Usage {
	if u.CostKnown || !u.TokensKnown {
		return u
	}
	p, _ := table.For(u.Model)
	u.CostUSD = (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6
	u.CostKnown, u.CostEstimated = true, true
	return u
}

// EstimateOutcome is [Estimate] for a parser's outcome: when the CLI split its
// tokens by model, each model is priced at its own rate (gemini names its router
// and main models; its "auto" is no model).
func EstimateOutcome(out Outcome, table Prices) evidence.Usage {
	u := out.Usage
	if u.CostKnown || !u.TokensKnown || len(out.Models) == 0 {
		return Estimate(u, table)
	}
	cost := 0.0
	for _, m := range out.Models {
		p, _ := table.For(m.Model)
		cost += (float64(m.Input)*p.Input + float64(m.Output)*p.Output +
			float64(m.CacheRead)*p.CacheRead + float64(m.CacheWrite)*p.CacheWrite) / 1e6
	}
	u.CostUSD, u.CostKnown, u.CostEstimated = cost, true, true
	return u
}
