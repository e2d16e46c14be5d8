package temporal

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Worker is what a worker process runs: the SDK's workers polling the
// server's task queue and the process's own, and the steps they run.
type Worker struct {
	ws []worker.Worker
}

// NewWorker is a worker polling the server's task queue for workflows and
// steps; with activityQueue it also polls that queue for the steps of the runs
// routed to this worker. Stopped, it drains for up to drain ([Worker.Stop]).
//
// The steps run under what ctx carries (the program's process groups, so that
// its watchdog ends what a dead worker's agents leave; the credential their
// git sends to the shared remote, [gitx.WithHTTPAuth]), not its cancellation.
func NewWorker(ctx context.Context, c client.Client, s Server, steps *Steps, activityQueue string, drain time.Duration) *Worker {
	bg := context.WithoutCancel(ctx)
	steps.drain = drain
	if steps.Ledger == nil {
		steps.Ledger = &LedgerClient{C: c, Queue: s.TaskQueue}
	}
	opts := worker.Options{BackgroundActivityContext: bg, WorkerStopTimeout: drain + HandBack}
	shared := opts
	if steps.MaxAgents > 0 && activityQueue != s.TaskQueue {
		// From the queue all workers share (the runs' first steps), a
		// worker takes no more than it can start soon: the others wait on
		// the server, at no cost, for whichever worker has a place first
		// (one started later too). A step taken waits for a place telling
		// the server it is alive, and the runs it brings stay here. The
		// steps of those runs come to its own queue, and are all taken at
		// once: one not taken soon means the worker is gone (route.go).
		// A step waiting for a checkpoint's push, its place given away,
		// does not count (sharedSteps).
		steps.shared = newSharedSteps(steps.MaxAgents + sharedBeyondPlaces)
		tuner, _ := worker.NewFixedSizeTuner(worker.FixedSizeTunerOptions{}) // the defaults: no error
		shared.Tuner = sharedTuner{WorkerTuner: tuner, shared: steps.shared}
	}
	w := worker.New(c, s.TaskQueue, shared)
	w.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowRun})
	w.RegisterWorkflowWithOptions(Ledger, workflow.RegisterOptions{Name: WorkflowLedger})
	RegisterSteps(w, steps)
	gs := &GraphSteps{Steps: steps}
	RegisterGraph(w, gs)
	ws := []worker.Worker{w}
	if activityQueue != "" && activityQueue != s.TaskQueue {
		opts.DisableWorkflowWorker = true
		aw := worker.New(c, activityQueue, opts)
		RegisterSteps(aw, steps)
		registerGraphSteps(aw, gs)
		ws = append(ws, aw)
	}
	return &Worker{ws: ws}
}

// Start starts polling; on an error, what started is stopped.
func (w *Worker) Start() error {
	for i, sw := range w.ws {
		if err := sw.Start(); err != nil {
			for _, started := range w.ws[:i] {
				started.Stop()
			}
			return err
		}
	}
	return nil
}

// Stop drains the worker: it takes no more workflow tasks or steps, gives the
// steps under way up to its drain time to end, then stops those left (their
// agents) and waits up to [HandBack] more for them to go back to the server,
// which runs each again on another worker from the iteration's start
// checkpoint: a step handed back is no iteration, failure or abort. What is
// still under way then (a graph's git work) is cancelled, and run again
// elsewhere once its heartbeat is missed.
func (w *Worker) Stop() {
	var wg sync.WaitGroup
	for _, sw := range w.ws {
		wg.Go(sw.Stop)
	}
	wg.Wait()
}

// sharedBeyondPlaces is how many steps from the shared queue a worker takes
// beyond its places: one at hand when a place frees, and one for the
// activities of a graph there.
const sharedBeyondPlaces = 2

// HandBack is how long a drained worker waits, after its drain time, for the
// steps it stopped to tell the server they are handed back.
const HandBack = 15 * time.Second

// RegisterSteps registers the step and keep activities of steps on w.
func RegisterSteps(w worker.Worker, steps *Steps) {
	w.RegisterActivityWithOptions(steps.Step, activity.RegisterOptions{Name: ActivityStep})
	registerKeep(w, steps)
}
