package engine

import (
	"cmp"
	"context"

	"github.com/agentloop/agentloop/internal/evidence"
)

// RecordGuard is a [Workspace] that can guard agentloop's records in git
// (the run's checkpoint refs, the branch, HEAD) around an agent run
// (gitx.Workspace): GuardRecords records them, and the check it returns puts
// back what changed since and says what that was.
type RecordGuard interface {
	GuardRecords(ctx context.Context, prefix string) (check func(context.Context) evidence.RecordChanges, err error)
}

// guardRecords records agentloop's git records before an agent runs. The
// function it returns, called after the agent, puts back what the agent
// changed and records it in ev: a change beyond a plain commit is the agent
// run's outcome ("moved the branch"), which the decision escalates. who names
// an agent other than the implementer ("the reviewer"), whose changes are
// recorded under its name.
func (l *Local) guardRecords(ctx context.Context, who string) func(ctx context.Context, ev *evidence.Iteration) {
	none := func(context.Context, *evidence.Iteration) {}
	rg, ok := l.Work.(RecordGuard)
	if !ok {
		return none
	}
	check, err := rg.GuardRecords(ctx, CheckpointRefs(l.Name, l.RunID))
	if err != nil {
		l.warn("record the branch and checkpoints before the agent runs (what it does to them will not be checked): %v", err)
		return none
	}
	return func(ctx context.Context, ev *evidence.Iteration) {
		changes := check(context.WithoutCancel(ctx))
		if len(changes) == 0 {
			return
		}
		if who != "" {
			for i := range changes {
				changes[i].What = who + ": " + changes[i].What
			}
		}
		ev.Records = append(ev.Records, changes...)
		l.warn("%s changed agentloop's records in git: %s", cmp.Or(who, "the agent"), changes)
		if who == "" && changes.Escalates() {
			ev.Agent.Outcome = evidence.OutcomeMovedBranch
			ev.Agent.Reason = changes.String()
		}
	}
}
