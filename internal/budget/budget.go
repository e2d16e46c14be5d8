package budget

import (
	"time"
)

// Resource names a budgeted quantity.
type Resource string

// Budgeted resources.
const (
	Tokens   Resource = "tokens"
	CostUSD  Resource = "cost"
	Duration Resource = "duration"
)

// Margin is the predictive rule's safety factor: the run stops when what is
// left is less than Margin × the mean cost of one iteration.
const Margin = 1.2

// SoftFraction is the share of a limit past which a warning is due.
const SoftFraction = 0.8

// Limits are a user's limits on one run, the one place they live: the
// configuration resolves into them, the loop's spec carries them, and the
// decision engine judges a run against them. Zero means no limit.
type Limits struct {
	MaxIterations    int           `json:"max_iterations,omitempty" yaml:"max_iterations,omitempty"`
	FailureThreshold int           `json:"failure_threshold,omitempty" yaml:"failure_threshold,omitempty"` // consecutive failed iterations before aborting
	MaxTokens        int64         `json:"max_tokens,omitempty" yaml:"max_tokens,omitempty"`
	MaxCostUSD       float64       `json:"max_cost_usd,omitempty" yaml:"max_cost_usd,omitempty"`
	MaxDuration      time.Duration `json:"max_duration,omitempty" yaml:"max_duration,omitempty"`           // wall time of the whole run
	IterationTimeout time.Duration `json:"iteration_timeout,omitempty" yaml:"iteration_timeout,omitempty"` // one agent run
}

// Status is what a run has spent, as the loop hands it to the decision
// engine: the totals over every session and each iteration's cost, from which
// the predictive rule takes its mean.
type Status struct {
	Spent        Spent  `json:"spent"`
	PerIteration []Cost `json:"per_iteration,omitempty"`
}

// Spent is what a run has used so far. TokensKnown/CostKnown are false when
// some iteration's figure was not reported: the totals are then lower bounds.
type Spent struct {
	Tokens      int64         `json:"tokens"`
	TokensKnown bool          `json:"tokens_known"`
	CostUSD     float64       `json:"cost_usd"`
	CostKnown   bool          `json:"cost_known"`
	Duration    time.Duration `json:"duration_ns"`
	Iterations  int           `json:"iterations"` // iterations since the counter last started (guidance resets it)
}

// Cost is what one iteration used.
type Cost struct {
	Tokens      int64         `json:"tokens"`
	TokensKnown bool          `json:"tokens_known"`
	CostUSD     float64       `json:"cost_usd"`
	CostKnown   bool          `json:"cost_known"`
	Duration    time.Duration `json:"duration_ns"`
}

// Total sums per-iteration costs into what was spent; a total is known only
// when every iteration's figure is.
func Total(perIteration []Cost) Spent {
	s := Spent{TokensKnown: true, CostKnown: true, Iterations: len(perIteration)}
	for _, c := range perIteration {
		s.Tokens += c.Tokens
		s.CostUSD += c.CostUSD
		s.Duration += c.Duration
		s.TokensKnown = s.TokensKnown && c.TokensKnown
		s.CostKnown = s.CostKnown && c.CostKnown
	}
	return s
}

// Remaining is what is left of each limit; -1 means that resource has no
// limit. The agent runner is given it to end an agent whose live usage crosses
// what the run has left.
type Remaining struct {
	Tokens   int64         `json:"tokens"`
	CostUSD  float64       `json:"cost_usd"`
	Duration time.Duration `json:"duration_ns"`
}

// Unlimited is a [Remaining] with no limit at all.
func Unlimited() Remaining { return Remaining{Tokens: -1, CostUSD: -1, Duration: -1} }

// AgentLimits are the token and cost limits of one agent run: what the run has
// left of each (zero: no limit). A resource with nothing left keeps the
// smallest positive limit, so that it still ends the agent. Wall time is not
// among them: the iteration timeout bounds an agent run.
func (r Remaining) AgentLimits() Limits {
	var l Limits
	if r.Tokens >= 0 {
		l.MaxTokens = max(r.Tokens, 1)
	}
	if r.CostUSD >= 0 {
		l.MaxCostUSD = max(r.CostUSD, 0.0001)
	}
	return l
}

// Verdict is the budget picture before the next iteration.
type Verdict struct {
	Hard         []Resource `json:"hard,omitempty"`          // limits crossed: stop
	CannotAfford []Resource `json:"cannot_afford,omitempty"` // another iteration would likely cross them: stop
	Soft         []Resource `json:"soft,omitempty"`          // at or past 80 %: warn
	// Unchecked are limits the predictive rule could not judge because some
	// iteration's spend was not reported (unknown is never taken as 0).
	Unchecked []Resource `json:"unchecked,omitempty"`
	Remaining Remaining  `json:"remaining"`
	Reason    string     `json:"reason,omitempty"` // one line for people, when there is something to say
}

// Stop reports whether the run must stop before another iteration.
func (v Verdict) Stop() bool { return len(v.Hard) > 0 || len(v.CannotAfford) > 0 }

// Minus is what s spent beyond o (o a part of s): the spend of the others when
// o is one run's. A total is known only when both are; o spending nothing (a
// run not started yet) leaves s as known as it was.
func (s Spent) Minus(o Spent) Spent {
	return Spent{
		Tokens: s.Tokens - o.Tokens, TokensKnown: s.TokensKnown && (o.TokensKnown || o.Tokens == 0),
		CostUSD: s.CostUSD - o.CostUSD, CostKnown: s.CostKnown && (o.CostKnown || o.CostUSD == 0),
		Duration: s.Duration - o.Duration, Iterations: s.Iterations - o.Iterations,
	}
}

// Within bounds l's token and cost limits by what is left of a budget shared
// with others (a task graph's) after what they spent, so one run cannot spend
// what the others were to have. A shared limit already used up keeps the
// smallest positive limit, since zero means none.
func (l Limits) Within(shared Limits, others Spent) Limits {
	if shared.MaxCostUSD > 0 && others.CostKnown {
		if left := max(shared.MaxCostUSD-others.CostUSD, 0.0001); l.MaxCostUSD <= 0 || left < l.MaxCostUSD {
			l.MaxCostUSD = left
		}
	}
	if shared.MaxTokens > 0 && others.TokensKnown {
		if left := max(shared.MaxTokens-others.Tokens, 1); l.MaxTokens <= 0 || left < l.MaxTokens {
			l.MaxTokens = left
		}
	}
	return l
}

// Key is who an amount is charged to: the provider (the agent preset that
// ran: claude, codex, …), the account (an identity derived from the
// provider's API key or login, never the key itself: see agent.Account) and
// the model. An empty model is not known yet (a reservation before the agent
// said which model it used).
type Key struct {
	Provider string `json:"provider,omitempty"`
	Account  string `json:"account,omitempty"`
	Model    string `json:"model,omitempty"`
}
