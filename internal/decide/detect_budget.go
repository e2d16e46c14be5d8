package decide

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// budgetLine is one budget's state after the iteration.
type budgetLine struct {
	Name      string  `yaml:"name"`
	Spent     float64 `yaml:"spent"`
	Limit     float64 `yaml:"limit"`
	Remaining float64 `yaml:"remaining"`
	PerIter   float64 `yaml:"mean_per_iteration"`
	State     string  `yaml:"state"` // ok | soft | cannot_afford | exhausted
}

// budgetLines computes every limited budget. Means are over every iteration of the
// run (history and the present), so one cheap iteration does not hide the trend.
func budgetLines(in loop.DecideInput) []budgetLine {
	b := in.Budget
	n := 1
	if in.State != nil {
		n += len(in.State.History)
	}
	var out []budgetLine
	add := func(name string, spent, limit float64, known bool) {
		if limit <= 0 || !known {
			return
		}
		l := budgetLine{Name: name, Spent: spent, Limit: limit, Remaining: max(0, limit-spent), PerIter: spent / float64(n), State: "ok"}
		switch {
		case spent >= limit:
			l.State = "exhausted"
		case l.Remaining < 1.2*l.PerIter:
			l.State = "cannot_afford"
		case spent >= 0.8*limit:
			l.State = "soft"
		}
		out = append(out, l)
	}
	add("tokens", float64(b.Spent.TotalTokens()), float64(b.MaxTokens), b.Spent.TokensKnown)
	add("cost_usd", b.Spent.CostUSD, b.MaxCostUSD, b.Spent.CostKnown)
	add("seconds", b.Wall.Seconds(), b.MaxDuration.Seconds(), true)
	return out
}

// detectBudget turns the budget lines into triggers: exhausted is critical,
// cannot-afford high, 80% spent medium; reaching max iterations with failures left
// is its own trigger.
func detectBudget(f *facts) []loop.Trigger {
	var out []loop.Trigger
	var soft []string
	for _, l := range budgetLines(f.in) {
		switch l.State {
		case "exhausted":
			out = append(out, trig(TBudgetHard, 1, false, "%s budget exhausted: %s of %s", l.Name, num(l.Spent), num(l.Limit)))
		case "cannot_afford":
			out = append(out, trig(TBudgetAfford, 0.8, false, "%s left: %s, an iteration costs %s on average", l.Name, num(l.Remaining), num(l.PerIter)))
		case "soft":
			soft = append(soft, fmt.Sprintf("%s %s of %s", l.Name, num(l.Spent), num(l.Limit)))
		}
	}
	b := f.in.Budget
	if b.MaxIterations > 0 && !f.cur.Succeeded {
		switch {
		case b.Iterations >= b.MaxIterations:
			out = append(out, trig(TMaxIterations, 0.7, false, "iteration %d of %d with %s left", b.Iterations, b.MaxIterations, plural(len(f.failing), "failure")))
		case float64(b.Iterations) >= 0.8*float64(b.MaxIterations):
			soft = append(soft, fmt.Sprintf("iterations %d of %d", b.Iterations, b.MaxIterations))
		}
	}
	if len(soft) > 0 {
		out = append(out, trig(TBudgetSoft, 0.4, true, "over 80%% spent: %s", strings.Join(soft, ", ")))
	}
	return out
}

// detectTransient: gate infrastructure failures, an agent failure the CLI marked
// transient, failures that are all flaky, and rate limits.
func detectTransient(f *facts) []loop.Trigger {
	var out []loop.Trigger
	ev := f.ev
	if ev.Agent.RateLimited {
		reset := ""
		if !ev.Agent.ResetAt.IsZero() {
			reset = ", resets at " + ev.Agent.ResetAt.UTC().Format(time.RFC3339)
		}
		out = append(out, trig(TRateLimit, 0.3, true, "the agent hit a rate limit%s", reset))
	}
	if ev.Agent.Transient {
		out = append(out, trig(TTransient, 0.3, true, "transient agent failure: %s", agentReason(ev.Agent)))
	}
	var infra, flaky []string
	for _, g := range ev.Gates {
		if g.Infra {
			infra = append(infra, g.Name+": "+orText(g.InfraReason, "could not run"))
			continue
		}
		for _, fd := range g.Findings {
			if fd.Flaky {
				flaky = append(flaky, FindingKey(fd))
			}
		}
	}
	if len(infra) > 0 {
		out = append(out, trig(TTransient, 0.3, true, "gate could not run: %s", strings.Join(infra, "; ")))
	}
	if len(flaky) > 0 {
		out = append(out, trig(TTransient, 0.2, true, "flaky (failed, then passed on rerun): %s", first(flaky)))
	}
	return out
}

// onlyTransient reports whether nothing but transient causes failed the iteration.
func onlyTransient(ev evidence.Iteration, ts []loop.Trigger) bool {
	transient := false
	for _, t := range ts {
		switch t.ID {
		case TTransient, TRateLimit:
			transient = true
		case TValidationFailure, TRequirementUnmet, TIncompleteOutput, TExplicitFeedback, TUserRejection:
			return false
		}
	}
	return transient
}

func num(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func itoa(n int) string { return strconv.Itoa(n) }

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
