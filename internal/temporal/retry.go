package temporal

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// What an activity's failure is decides whether it is tried again. A failure
// of the infrastructure (an attempt timed out, its worker lost or its
// heartbeat missed) is no failure of the work: the server tries the activity
// again with backoff for as long as it takes ([infraRetry]). A failure the
// activity returns itself (a git command that failed, a file it could not
// write) is the work's: it is tried again a few times, for what passes (a
// lock held by another git, a remote that did not answer), and its last
// attempt's error is final ([ownError]), so that the workflow hears of it.

// infraRetry is the retry policy of the graph's activities and the keep
// activity: no cap on the attempts, with backoff up to a minute between them.
// Their own errors are final after a few attempts ([ownError]).
func infraRetry() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute}
}

// ownError is the error an activity returns when it failed on its own: tried
// again until its attempts reach attempts, then final (a non-retryable
// application error of the type kind). An error that is final already, the
// activity's cancellation, or an error outside an activity (a test calling
// it), is returned as it is.
func ownError(ctx context.Context, err error, attempts int32, kind string) error {
	if err == nil || ctx.Err() != nil || !activity.IsActivity(ctx) {
		return err
	}
	if ae, ok := errors.AsType[*temporal.ApplicationError](err); ok && ae.NonRetryable() {
		return err
	}
	if activity.GetInfo(ctx).Attempt < attempts {
		return err
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), kind, err)
}

// The attempts an activity failing on its own is given: the graph's git work
// (as many as it had before its infrastructure's failures were retried
// without a cap) and the keep activity's files.
const (
	graphAttempts = 5
	keepAttempts  = 3
)
