package ledger

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// Period is the span a cap covers: a calendar day, ISO week or month in the
// machine's time zone.
type Period string

// The periods of a cap.
const (
	Day   Period = "day"
	Week  Period = "week"
	Month Period = "month"
)

// Periods are the periods a cap can have, in order.
func Periods() []string { return []string{string(Day), string(Week), string(Month)} }

// Of names the period of p that holds t, in t's location: "2026-11-25",
// "2026-W48", "2026-11".
func (p Period) Of(t time.Time) string {
	switch p {
	case Week:
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case Month:
		return t.Format("2006-01")
	}
	return t.Format(time.DateOnly)
}

// Word is the period for people: "today", "this week", "this month".
func (p Period) Word() string {
	switch p {
	case Week:
		return "this week"
	case Month:
		return "this month"
	}
	return "today"
}

// Cap is one limit on the shared spend: what every loop together may spend in
// a period, in total or for the provider, account or model named (an empty
// field matches any). Zero amounts are no limit. A hard limit refuses an
// iteration that would cross it; a soft limit parks it until approved.
type Cap struct {
	Name        string  `json:"name" yaml:"name"`
	Period      Period  `json:"period" yaml:"period"`
	Provider    string  `json:"provider,omitempty" yaml:"provider,omitempty"`
	Account     string  `json:"account,omitempty" yaml:"account,omitempty"`
	Model       string  `json:"model,omitempty" yaml:"model,omitempty"`
	MaxCostUSD  float64 `json:"max_cost_usd,omitempty" yaml:"max_cost_usd,omitempty"`
	SoftCostUSD float64 `json:"soft_cost_usd,omitempty" yaml:"soft_cost_usd,omitempty"`
	MaxTokens   int64   `json:"max_tokens,omitempty" yaml:"max_tokens,omitempty"`
	SoftTokens  int64   `json:"soft_tokens,omitempty" yaml:"soft_tokens,omitempty"`
}

// DefaultName is the name a cap gets when its configuration gives none: its
// period and what it covers ("day", "week/claude", "month/model=o3").
func (c Cap) DefaultName() string {
	parts := []string{string(c.Period)}
	if c.Provider != "" {
		parts = append(parts, c.Provider)
	}
	if c.Account != "" {
		parts = append(parts, "account="+c.Account)
	}
	if c.Model != "" {
		parts = append(parts, "model="+c.Model)
	}
	return strings.Join(parts, "/")
}

// Covers says what the cap covers, for people: "all spend", "claude",
// "claude, model o3".
func (c Cap) Covers() string {
	var parts []string
	if c.Provider != "" {
		parts = append(parts, c.Provider)
	}
	if c.Account != "" {
		parts = append(parts, "account "+c.Account)
	}
	if c.Model != "" {
		parts = append(parts, "model "+c.Model)
	}
	if len(parts) == 0 {
		return "all spend"
	}
	return strings.Join(parts, ", ")
}

// Matches reports whether an amount charged to k counts against the cap. A
// key whose model is not known yet falls under a model's cap: a reservation
// is judged before its agent says which model it uses.
func (c Cap) Matches(k budget.Key) bool {
	return (c.Provider == "" || c.Provider == k.Provider) &&
		(c.Account == "" || c.Account == k.Account) &&
		(c.Model == "" || k.Model == "" || c.Model == k.Model)
}

// Validate reports every problem of the cap at once.
func (c Cap) Validate() error {
	var errs []error
	switch c.Period {
	case Day, Week, Month:
	default:
		errs = append(errs, fmt.Errorf("period %q is not one of %s", c.Period, strings.Join(Periods(), ", ")))
	}
	if c.MaxCostUSD < 0 || c.SoftCostUSD < 0 || c.MaxTokens < 0 || c.SoftTokens < 0 {
		errs = append(errs, errors.New("a limit cannot be negative"))
	}
	if c.MaxCostUSD == 0 && c.SoftCostUSD == 0 && c.MaxTokens == 0 && c.SoftTokens == 0 {
		errs = append(errs, errors.New("no limit: give max_cost_usd, soft_cost_usd, max_tokens or soft_tokens"))
	}
	if c.MaxCostUSD > 0 && c.SoftCostUSD > c.MaxCostUSD {
		errs = append(errs, fmt.Errorf("soft_cost_usd %g is above max_cost_usd %g: the soft limit must come first", c.SoftCostUSD, c.MaxCostUSD))
	}
	if c.MaxTokens > 0 && c.SoftTokens > c.MaxTokens {
		errs = append(errs, fmt.Errorf("soft_tokens %d is above max_tokens %d: the soft limit must come first", c.SoftTokens, c.MaxTokens))
	}
	return errors.Join(errs...)
}
