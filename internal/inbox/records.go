package inbox

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
)

// Budget is the record of the run named run that a budget stopped: v is the
// budget's verdict on what the run spent, l its limits. Each limit crossed,
// or too close to afford another iteration, gets the option of raising it to
// twice its value; reach ends each command (see
// [decision.EscalationReport.Flags]).
func Budget(run, reach string, l budget.Limits, v budget.Verdict) decision.NeedsYou {
	n := decision.NeedsYou{Kind: decision.NeedsBudget, Run: run,
		Question: "A budget stopped the run. Raise it to go on?", Evidence: "budget: " + v.Reason}
	seen := map[budget.Resource]bool{}
	for _, r := range append(append([]budget.Resource(nil), v.Hard...), v.CannotAfford...) {
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

// Setup is the record of the run named run whose agent cannot work until a
// person fixes its setup (a rejected key, a missing program).
func Setup(run, reach string, se *agent.SetupError) decision.NeedsYou {
	n := decision.NeedsYou{Kind: decision.NeedsSetup, Run: run, Evidence: se.Headline(),
		Question: fmt.Sprintf("The %s %s cannot work. Fix its setup, then go on?", orDefault(se.Role, "agent"), se.Agent)}
	label := "Fix the setup, then resume the run"
	if se.Fix != "" {
		label = "Fix the setup (" + se.Fix + "), then resume the run"
	}
	n.Options = []decision.Answer{{Label: label, TradeOff: "the run goes on where it stopped",
		Command: command("agentloop resume "+run, reach)}}
	return n
}

// MergeConflict is the record of the task of a graph whose branch conflicts
// with the branch it merges into on files; taskFile is the graph's task file,
// which runs it again.
func MergeConflict(graph, task, run, branch string, files []string, taskFile string) decision.NeedsYou {
	return decision.NeedsYou{
		Kind: decision.NeedsMergeConflict, Run: run, Graph: graph, Task: task,
		Question: fmt.Sprintf("The branch of task %s conflicts with yours. Merge it by hand?", task),
		Evidence: fmt.Sprintf("merging %s conflicts in %s; it was left unmerged", branch, strings.Join(files, ", ")),
		Options: []decision.Answer{
			{Label: "Merge it by hand", Command: "git merge " + branch,
				TradeOff: "resolve the conflicts and commit; then 'agentloop run --tasks " + taskFile + "' goes on with the graph"},
			{Label: "Leave it unmerged", Command: "agentloop clean",
				TradeOff: "its worktree and branch stay until you remove them"},
		},
	}
}

func command(s, reach string) string {
	if reach != "" {
		return s + " " + reach
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
