package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/tasks"
)

// GraceError is the cause of a [Finishing] context cut because its grace
// after the signal ran out.
type GraceError struct{ Grace time.Duration }

func (e *GraceError) Error() string {
	return fmt.Sprintf("git did not finish within %s of the signal", e.Grace)
}

// Finishing is the context of the git work a graph finishes even when a
// signal stops it: a task's work committed on its branch once its loop ended
// (run again, the graph only merges that task, and work left uncommitted in
// its worktree stops the merge), and the work that follows a merge (a
// Markdown plan ticked, the task's worktree and branch removed: the merge is
// in the repository, and what that work would leave behind no later run
// makes again). The signal (ctx's cancellation) does not cut it short; from
// the signal on it has grace (below 1: [tasks.DefaultStopGrace]), then it is cut
// with a [GraceError] as its cause, so that a git held by a hook or a lock
// does not keep the process alive. The caller cancels it when done.
func Finishing(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	if grace <= 0 {
		grace = tasks.DefaultStopGrace
	}
	fctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel(&GraceError{Grace: grace})
		case <-fctx.Done():
		}
	})
	return fctx, func() {
		stop()
		cancel(context.Canceled)
	}
}
