package decide

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/state"
)

// Preflight implements [state.Decider]: before an iteration starts, the
// iteration limit and the budgets (hard, the predictive 1.2 × mean rule, 80%)
// say whether it may. A loop without outside evidence completes at its limit;
// one with gates or a reviewer escalates there, its goal not met. The verdict
// carries what the run has left, for the agent runner's live watch.
func (e *Engine) Preflight(in state.PreflightInput) state.Preflight {
	spec := in.Spec
	if spec == nil {
		spec = &state.Spec{}
	}
	st := in.State
	if st == nil {
		st = &state.State{}
	}
	l := spec.Limits
	v := judgeBudget(l, in.Budget)
	p := state.Preflight{Action: state.ActionContinue, Remaining: v.Remaining, Reserve: budget.Predict(in.Budget.PerIteration)}
	switch {
	case l.MaxIterations > 0 && st.Iteration >= l.MaxIterations && !spec.HasGates && !spec.HasReviewer:
		p.Action, p.Message = state.ActionComplete, fmt.Sprintf("max iterations reached (%d)", l.MaxIterations)
	case l.MaxIterations > 0 && st.Iteration >= l.MaxIterations:
		p.Action, p.Message = state.ActionEscalate, fmt.Sprintf("max iterations reached (%d) with the goal not met", l.MaxIterations)
	case v.Stop():
		p.Action, p.Message, p.Budgets = state.ActionAbort, "budget: "+v.Reason, stopping(v)
	case len(v.Soft) > 0:
		p.Warn, p.Warning = v.Soft, "budget: "+v.Reason
	}
	return p
}

// thresholdReached reports, for an iteration that counts as a failure, the
// reason to abort when it makes the consecutive failures reach the run's
// failure threshold: what the iteration showed, then the count.
func thresholdReached(in state.DecideInput, succeeded bool, label string) (string, bool) {
	t := in.Spec.Limits.FailureThreshold
	if t <= 0 || succeeded {
		return "", false
	}
	n := in.State.ConsecutiveFailures + 1
	if n < t {
		return "", false
	}
	why := fmt.Sprintf("consecutive failures: %d/%d", n, t)
	if label != "" {
		why = label + "; " + why
	}
	return why, true
}
