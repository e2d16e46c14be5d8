package loop

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// BudgetNeeds is the record of the run named run that its budgets stopped, as
// the run recorded it: why, and the limits of l that stopped it (crossed, or
// too close to afford another iteration). Each gets the option of raising it
// to twice its value; reach ends each command (see
// [decision.EscalationReport.Flags]).
func BudgetNeeds(run, reach string, l budget.Limits, why string, stopped []budget.Resource) decision.NeedsYou {
	n := decision.NeedsYou{Kind: decision.NeedsBudget, Run: run,
		Question: "A budget stopped the run. Raise it to go on?", Evidence: why}
	seen := map[budget.Resource]bool{}
	for _, r := range stopped {
		if seen[r] {
			continue
		}
		seen[r] = true
		flag, now, more := raise(r, l)
		if flag == "" {
			continue
		}
		n.Options = append(n.Options, decision.Answer{
			Label:    fmt.Sprintf("Raise the %s budget from %s to %s", resourceName(r), now, more),
			TradeOff: "the run goes on where it stopped; what it spent so far counts",
			Command:  command("agentloop resume "+run+" "+flag+" "+more, reach),
		})
	}
	n.Options = append(n.Options, decision.Answer{
		Label: "Leave it stopped", TradeOff: "the work tree keeps the run's best checkpoint",
		Command: command("agentloop status "+run, reach)})
	return n
}

// raise is the flag of a budget's limit, the limit as the flag writes it, and
// twice it.
func raise(r budget.Resource, l budget.Limits) (flag, now, more string) {
	switch r {
	case budget.CostUSD:
		return "--max-cost", strconv.FormatFloat(l.MaxCostUSD, 'f', -1, 64), strconv.FormatFloat(2*l.MaxCostUSD, 'f', -1, 64)
	case budget.Tokens:
		return "--max-tokens", strconv.FormatInt(l.MaxTokens, 10), strconv.FormatInt(2*l.MaxTokens, 10)
	case budget.Duration:
		return "--max-duration", dur(l.MaxDuration), dur(2 * l.MaxDuration)
	}
	return "", "", ""
}

func resourceName(r budget.Resource) string {
	switch r {
	case budget.Duration:
		return "time"
	case budget.Tokens:
		return "token"
	}
	return string(r)
}

// dur writes a duration as a flag takes it, without the zero units Go's
// String keeps ("2h", not "2h0m0s").
func dur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// SetupNeeds is the record of the run named run whose agent cannot work until a
// person fixes its setup (a rejected key, a missing program).
func SetupNeeds(run, reach string, se *agent.SetupError) decision.NeedsYou {
	n := decision.NeedsYou{Kind: decision.NeedsSetup, Run: run, Evidence: se.Headline(),
		Question: fmt.Sprintf("The %s %s cannot work. Fix its setup, then go on?", cmp.Or(se.Role, "agent"), se.Agent)}
	fix := "the run goes on where it stopped"
	if se.Fix != "" {
		fix = "to fix: " + se.Fix
	}
	n.Options = []decision.Answer{{Label: "Fix the setup, then resume the run", TradeOff: fix,
		Command: command("agentloop resume "+run, reach)}}
	return n
}

func command(s, reach string) string {
	if reach != "" {
		return s + " " + reach
	}
	return s
}

// Stopped is the record of a run that ended a session as out (with the error
// runErr) and waits for a person to go on: one whose agent cannot work until
// its setup is fixed, or one its budgets (of l) stopped, as its state st
// records the loop's decision. Other ends wait for nobody.
func Stopped(run, reach string, st *state.State, l budget.Limits, out Outcome, runErr error) (decision.NeedsYou, bool) {
	if se, ok := errors.AsType[*agent.SetupError](runErr); ok {
		return SetupNeeds(run, reach, se), true
	}
	if out.Status != state.StatusAborted || len(st.StoppedBy) == 0 {
		return decision.NeedsYou{}, false
	}
	return BudgetNeeds(run, reach, l, st.Reason, st.StoppedBy), true
}
