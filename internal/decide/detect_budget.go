package decide

import (
	"slices"

	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/textcut"
)

// judgeBudget is the one place a run's spend is judged against its limits,
// with the budget package's rules (hard limit, the predictive 1.2 × mean rule,
// 80%), over every iteration of the run, so one cheap iteration does not hide
// the trend: before an iteration ([Engine.Preflight]) and after it.
func judgeBudget(l budget.Limits, s budget.Status) budget.Verdict {
	return budget.Check(l, s.Spent, s.PerIteration)
}

// stopping are the limits of verdict v that stop the run: crossed, then
// those too close to afford another iteration, each once.
func stopping(v budget.Verdict) []budget.Resource {
	var out []budget.Resource
	for _, r := range append(slices.Clone(v.Hard), v.CannotAfford...) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// budgetLines is every limited budget's state after the iteration.
func budgetLines(in state.DecideInput) []decision.BudgetLine {
	lim := in.Spec.Limits
	spent := in.Budget.Spent
	v := judgeBudget(lim, in.Budget)
	n := float64(max(len(in.Budget.PerIteration), 1))
	var out []decision.BudgetLine
	add := func(r budget.Resource, name string, spent, limit, remaining float64, known bool) {
		if limit <= 0 || !known {
			return
		}
		l := decision.BudgetLine{Name: name, Spent: spent, Limit: limit, Remaining: remaining, PerIter: spent / n, State: "ok"}
		switch {
		case slices.Contains(v.Hard, r):
			l.State = "exhausted"
		case slices.Contains(v.CannotAfford, r):
			l.State = "cannot_afford"
		case slices.Contains(v.Soft, r):
			l.State = "soft"
		}
		out = append(out, l)
	}
	add(budget.Tokens, "tokens", float64(spent.Tokens), float64(lim.MaxTokens), float64(v.Remaining.Tokens), spent.TokensKnown)
	add(budget.CostUSD, "cost_usd", spent.CostUSD, lim.MaxCostUSD, v.Remaining.CostUSD, spent.CostKnown)
	add(budget.Duration, "seconds", spent.Duration.Seconds(), lim.MaxDuration.Seconds(), v.Remaining.Duration.Seconds(), true)
	return out
}

// lineResource is the resource of a budget line of the decision document, and
// the factor that turns its figures into the resource's unit (seconds into
// nanoseconds).
func lineResource(name string) (budget.Resource, float64) {
	switch name {
	case "cost_usd":
		return budget.CostUSD, 1
	case "seconds":
		return budget.Duration, float64(time.Second)
	}
	return budget.Tokens, 1
}

// detectBudget turns the budget lines into triggers: exhausted is critical,
// cannot-afford high, 80% spent medium; reaching max iterations with failures left
// is its own trigger.
func detectBudget(f *facts) []decision.Trigger {
	var out []decision.Trigger
	var soft []string
	for _, l := range budgetLines(f.in) {
		r, scale := lineResource(l.Name)
		show := func(x float64) string { return r.Show(x*scale, l.Limit*scale) }
		switch l.State {
		case "exhausted":
			out = append(out, trig(decision.TriggerBudgetHard, 1, false, "budget: %s: %s spent of %s", r.Word(), show(l.Spent), show(l.Limit)))
		case "cannot_afford":
			out = append(out, trig(decision.TriggerBudgetAfford, 0.8, false, "%s left: %s, an iteration takes %s on average", r.Word(), show(l.Remaining), show(l.PerIter)))
		case "soft":
			soft = append(soft, fmt.Sprintf("%s %s of %s", r.Word(), show(l.Spent), show(l.Limit)))
		}
	}
	done, limit := f.in.Budget.Spent.Iterations, f.in.Spec.Limits.MaxIterations
	if limit > 0 && !f.cur.Succeeded {
		switch {
		case done >= limit && f.weakened != "":
			out = append(out, trig(decision.TriggerMaxIterations, 0.7, false, "iteration %d of %d, and it weakened the tests (%s)", done, limit, f.weakened))
		case done >= limit:
			out = append(out, trig(decision.TriggerMaxIterations, 0.7, false, "iteration %d of %d with %s left", done, limit, plural(len(f.failing), "failure")))
		case float64(done) >= budget.SoftFraction*float64(limit):
			soft = append(soft, fmt.Sprintf("iterations %d of %d", done, limit))
		}
	}
	if len(soft) > 0 {
		out = append(out, trig(decision.TriggerBudgetSoft, 0.4, true, "over 80%% spent: %s", strings.Join(soft, ", ")))
	}
	return out
}

// detectTransient: gate infrastructure failures, an agent failure the CLI marked
// transient, failures that are all flaky, and rate limits.
func detectTransient(f *facts) []decision.Trigger {
	var out []decision.Trigger
	ev := f.ev
	if ev.Agent.RateLimited {
		reset := ""
		if !ev.Agent.ResetAt.IsZero() {
			reset = ", resets at " + ev.Agent.ResetAt.UTC().Format(time.RFC3339)
		}
		out = append(out, trig(decision.TriggerRateLimit, 0.3, true, "the agent hit a rate limit%s", reset))
	}
	if ev.Agent.Transient {
		out = append(out, trig(decision.TriggerTransient, 0.3, true, "transient agent failure: %s", agentReason(ev.Agent)))
	}
	var infra, flaky []string
	for _, g := range ev.Gates {
		if g.Infra {
			infra = append(infra, g.Name+": "+orText(g.InfraReason, "could not run"))
			continue
		}
		for _, fd := range slices.Concat(g.Findings, g.Flaky) {
			if fd.Flaky {
				flaky = append(flaky, gate.Key(fd))
			}
		}
	}
	if len(infra) > 0 {
		out = append(out, trig(decision.TriggerTransient, 0.3, true, "gate could not run: %s", strings.Join(infra, "; ")))
	}
	if len(flaky) > 0 {
		out = append(out, trig(decision.TriggerTransient, 0.2, true, "flaky (failed, then passed on rerun): %s", first(flaky)))
	}
	return out
}

// onlyTransient reports whether nothing but transient causes failed the iteration.
func onlyTransient(ev evidence.Iteration, ts []decision.Trigger) bool {
	transient := false
	for _, t := range ts {
		switch t.ID {
		case decision.TriggerTransient, decision.TriggerRateLimit:
			transient = true
		case decision.TriggerValidationFailure, decision.TriggerRequirementUnmet, decision.TriggerIncompleteOutput, decision.TriggerExplicitFeedback, decision.TriggerUserRejection:
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

// clip is s without blank space around it, in at most n bytes; the engine's
// reasons, feedback and documents mark a cut with "..." (their goldens show it).
func clip(s string, n int) string { return textcut.BytesMarked(strings.TrimSpace(s), n, "...") }
