package loop

import (
	"context"
	"slices"

	"github.com/agentloop/agentloop/internal/state"
)

// preflight asks the decider, before an iteration starts, whether the run may
// go on, and shows a budget warning when the limits past their mark changed.
func (r *runner) preflight(ctx context.Context) state.Preflight {
	p := r.spec.Decider.Preflight(state.PreflightInput{State: r.st, Spec: r.spec, Budget: state.BudgetStatus(r.st, nil)})
	if p.Action == "" {
		p.Action = state.ActionContinue
	}
	if len(p.Warn) > 0 && !slices.Equal(p.Warn, r.warned) {
		r.warned = p.Warn
		r.emit(ctx, r.st.Iteration, state.Warning{Message: p.Warning, Budget: p.Warn})
	}
	return p
}
