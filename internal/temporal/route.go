package temporal

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// A run's work tree lives on one worker's disk. Its steps go to the queue of
// the worker that ran its last step (each worker polls a queue of its own
// beside the shared one, see [NewWorker]); the first step goes to the queue the
// run was started with ([RunRef.TaskQueue]), or to any worker. When nobody
// takes a step from that queue within twice the heartbeat timeout (the worker
// died, with its step or between steps), the worker counts as gone for good:
// the step goes to any worker, which rebuilds the work tree from the run's
// last checkpoint, fetched from the shared remote (see [Steps]).

// route is where a run's work tree is.
type route struct {
	queue string // the queue of the worker holding the work tree; "" for any worker
	known bool   // queue was learned from a step (else the run's own TaskQueue)
}

// StepOutput is the step activity's result: the step's, and the queue of the
// worker that ran it, which holds the run's work tree from then on.
type StepOutput struct {
	state.StepResult
	Queue string `json:",omitempty"`
	// Reserved is the answer of a reserve step.
	Reserved *Reserved `json:",omitempty"`
}

// DefaultHeartbeatTimeout is how long a step may go without a sign of life
// when the run does not say ([RunInput.HeartbeatTimeout]).
const DefaultHeartbeatTimeout = 30 * time.Second

func (in RunInput) heartbeatTimeout() time.Duration {
	if hb := in.HeartbeatTimeout; hb > 0 {
		return hb
	}
	return DefaultHeartbeatTimeout
}

// queue is the task queue of the run's next step.
func (w *wfEnv) queue() string {
	if w.route.known {
		return w.route.queue
	}
	return w.in.Run.TaskQueue
}

// Step implements [loop.Env]: the step is an activity on the queue of the
// worker holding the run's work tree. A reservation ([loop.StepReserve]) is
// judged by the ledger workflow (spend.go); the iteration after it runs
// under it.
func (w *wfEnv) Step(_ context.Context, r loop.StepRequest) (state.StepResult, error) {
	if r.Kind == loop.StepReserve {
		return w.reserve(r)
	}
	in := StepInput{Run: w.in.Run, Request: r, Last: w.last()}
	if r.Kind == loop.StepIteration {
		in.Hold, w.hold = w.hold, nil
	}
	if w.pending != nil && w.keptWithStep() {
		in.Keep, w.pending = w.pending, nil
	}
	out, err := w.execStep(r, in)
	if err != nil && in.Keep != nil && w.pending == nil {
		// The step may have ended before it wrote them: a keep activity
		// writes them if no other step comes (a file is written once).
		w.pending = in.Keep
	}
	return out.StepResult, stepError(err)
}

// execStep runs the step activity for r on the queue of the worker holding
// the run's work tree, on another one when that worker is gone.
func (w *wfEnv) execStep(r loop.StepRequest, in StepInput) (StepOutput, error) {
	for {
		queue := w.queue()
		var out StepOutput
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(w.ctx, w.stepOptions(r, queue)), ActivityStep, in).Get(w.ctx, &out)
		if err != nil && queue != "" && workerGone(err) {
			workflow.GetLogger(w.ctx).Warn("the worker holding the work tree is gone: the step goes to another, which rebuilds the work tree from the last checkpoint",
				"run", w.in.Run.Name, "queue", queue, "error", err)
			w.route = route{known: true}
			in.Moved = true
			continue
		}
		if err == nil && out.Queue != "" {
			w.route = route{queue: out.Queue, known: true}
		}
		return out, err
	}
}

// last is the run's last checkpoint: the one its work tree was last left at
// (an iteration's end, a rollback to the best, an undo), else its last
// iteration's, else its best's. A step rebuilding the work tree elsewhere
// restores it, so that a rollback is not undone there.
func (w *wfEnv) last() string {
	if w.st.Tree != "" {
		return w.st.Tree
	}
	if n := len(w.st.History); n > 0 && w.st.History[n-1].Checkpoint != "" {
		return w.st.History[n-1].Checkpoint
	}
	if w.st.Best != nil {
		return w.st.Best.Ref
	}
	return ""
}

// stepOptions are the activity options of step r on queue.
func (w *wfEnv) stepOptions(r loop.StepRequest, queue string) workflow.ActivityOptions {
	hb := w.in.heartbeatTimeout()
	opts := workflow.ActivityOptions{
		TaskQueue:           queue,
		StartToCloseTimeout: stepTimeout(r, w.in.Limits),
		HeartbeatTimeout:    hb,
		// A cancelled run ends once its step has stopped (its agent killed
		// on the worker), so that nothing is left at work in the work tree
		// the run is resumed in.
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			// A step that failed on its own says so and is not run again;
			// only a lost worker (a missed heartbeat, a timeout) retries, as
			// long as it takes: the infrastructure's failures are never the
			// agent's (no iteration, failure or abort is counted for them).
			MaximumAttempts: 0,
		},
	}
	if queue != "" {
		// A worker's own queue has no other poller: nobody taking the step
		// for this long means the worker is gone.
		opts.ScheduleToStartTimeout = 2 * hb
	}
	return opts
}

// workerGone reports whether a step's error says its worker is gone: nobody
// took it from the worker's queue, or its attempts ran out on lost heartbeats.
func workerGone(err error) bool {
	te, ok := errors.AsType[*temporal.TimeoutError](err)
	if !ok {
		return false
	}
	switch te.TimeoutType() {
	case enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, enumspb.TIMEOUT_TYPE_HEARTBEAT:
		return true
	}
	return false
}

// stepTimeout is a step's start-to-close timeout: the iteration timeout, with
// room for the gates and the reviewer after the agent, which the agent's own
// timeout does not cover; without one, a day.
func stepTimeout(r loop.StepRequest, l budget.Limits) time.Duration {
	t := r.Timeout
	if t <= 0 {
		t = l.IterationTimeout
	}
	if t <= 0 {
		return 24 * time.Hour
	}
	return t + stepGrace
}

// stepGrace is the time a step gets after the iteration timeout for its gates,
// reviewer and checkpoint.
const stepGrace = 30 * time.Minute

// stepError turns an activity's error back into what the loop expects.
func stepError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*temporal.CanceledError](err); ok {
		return &loop.StopError{Status: state.StatusInterrupted, Reason: "the workflow was cancelled"}
	}
	if ae, ok := errors.AsType[*temporal.ApplicationError](err); ok && ae.Type() == stopErrorType {
		var s stopDetails
		if ae.HasDetails() && ae.Details(&s) == nil {
			se := &loop.StopError{Status: s.Status, Reason: s.Reason}
			if s.Err != "" {
				se.Err = errors.New(s.Err)
			}
			return se
		}
	}
	if ae := refusal(err); ae != nil {
		// A configuration error, not the agent's: the run stops with it as
		// its reason (said once, with the fix), and its workflow ends in it
		// for whoever follows the run.
		return &loop.StopError{Status: state.StatusAborted, Reason: ae.Message(), Err: ae}
	}
	return err
}
