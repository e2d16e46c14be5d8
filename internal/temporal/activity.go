package temporal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// StepInput is the step activity's argument.
type StepInput struct {
	Run RunRef
	// Request is the step: an iteration's carries its feedback, its
	// guidance and its strategy, which the loop in the workflow made from the
	// run's history. The step needs none of that history itself, and gets
	// none: an input that grew with the run's iterations made its workflow's
	// history grow with their square (a build before sent it, and read
	// nothing of it).
	Request loop.StepRequest
	// Last is the run's last checkpoint: where a step run again after its
	// worker died starts from when its own start checkpoint was never taken.
	Last string
	// Moved says the step was taken away from the worker holding the run's
	// work tree, gone for good: it is rebuilt here from the shared remote.
	Moved bool `json:",omitempty"`
	// Hold is the reservation an iteration runs under in the ledger
	// workflow (nil: the run shares no spend); the step settles it.
	Hold *Hold `json:",omitempty"`
	// Keep are the files of the run's last iteration (its decision and
	// feedback), which the step writes in the run folder first, as the keep
	// activity did ([wfEnv.flushKeep]).
	Keep *state.Artifacts `json:",omitempty"`
}

// stopErrorType is the activity error type of a [loop.StopError].
const stopErrorType = "agentloop.StopError"

type stopDetails struct {
	Status state.Status
	Reason string
	Err    string
}

// Steps runs the loop's steps on a worker: the local engine's, in the run's
// work tree on this machine.
type Steps struct {
	// Plan rebuilds a run's plan from its reference (the worker's configuration
	// in the run's work tree, with the run's recorded flags).
	Plan func(ctx context.Context, r RunRef) (*plan.Plan, error)
	Log  *slog.Logger
	// Queue is this worker's own task queue ("" for none): a step's result
	// names it, and the run's next steps come to it, where its work tree is.
	Queue string
	// Remote is the git remote of the work trees, shared by the workers
	// ("" for none): each checkpoint is pushed there, and a worker taking over
	// a run from a worker that is gone fetches them to rebuild its work tree.
	Remote string
	// WorkTree is this worker's clone of the runs' repository ("" for the
	// path each run names): a task graph's repository, its state folder and
	// its tasks' worktrees are mapped onto it ([GraphTask.In]).
	WorkTree string
	// MaxAgents is how many steps (each an agent's iteration, or the gates
	// of a baseline) run at once on this worker, whichever queue they came
	// from; 0 for no limit. A step beyond it waits on the worker, telling the
	// server it is alive, until one ends. From the queue all workers share,
	// a worker takes only [sharedBeyondPlaces] steps more ([NewWorker]).
	MaxAgents int
	// Metrics counts the steps and what they used (nil for none).
	Metrics *Metrics
	// Ledger is the ledger workflow the runs' iterations are reserved in
	// and settled in (ledger.go); nil: a run whose configuration has
	// budgets: is refused.
	Ledger *LedgerClient

	git   sync.Mutex // serialises the worktree and merge work on the clone: git locks its metadata
	mu    sync.Mutex
	runs  map[string]*workTree // by run ID: the engine keeps its checkpoints between steps
	turns map[string]*turn     // by run ID: the step attempt under way ([Steps.takeTurn])
	// dropped are the runs whose engines this worker dropped ([Steps.evict])
	// after a step of theirs that ended here, by run ID: the checkpoint
	// that step ended at, which the run's work tree in this clone is still at.
	dropped map[string]string
	seq     uint64  // counts the steps, for the least recently used
	places  *places // MaxAgents of them, for the steps at work (places.go)
	sharer  *sharer // pushes the runs' checkpoints to Remote ([Steps.sharing])
	// shared hands out the slots of steps from the queue all workers share
	// (nil: the SDK's): a step from there waiting for a push is set aside.
	shared *sharedSteps
	// atWork counts the steps at work, by work tree (their agents or gates,
	// or a first iteration's agent waiting for its start checkpoint's push
	// with its place given away): their end pushes are that clone's.
	atWork map[string]int
	drain  time.Duration // how long a step goes on once its worker stops ([Worker.Stop])
}

// workTree is a run's engine on this worker and the plan it was built from.
type workTree struct {
	l      *engine.Local
	p      *plan.Plan
	notify *notify.Notifier // the run's rate-limit waits' (notify.go); nil: none
	busy   int              // steps under way
	used   uint64           // the last step's number
	last   string           // the checkpoint the last step that ended here ended at
}

// Step is the step activity.
func (s *Steps) Step(ctx context.Context, in StepInput) (StepOutput, error) {
	if in.Request.Kind == loop.StepReserve {
		return s.reserveStep(ctx, in)
	}
	ctx, handBack := s.draining(ctx)
	defer handBack()
	info := activity.GetInfo(ctx)
	var shared *sharedSteps // the slot of a step from the shared queue
	if s.Queue != "" && info.TaskQueue != s.Queue {
		shared = s.shared
	}
	// Once the step's engine is at it, each heartbeat tells the server what
	// it is doing: its iteration and phase, as a local run's live file does.
	var at atomic.Pointer[engine.Local]
	atWork, stop := heartbeat(ctx, info.HeartbeatTimeout, func() state.LiveStatus {
		if l := at.Load(); l != nil {
			return stepLive(l.Live())
		}
		return state.LiveStatus{}
	})
	defer stop()
	ctx, endTurn, err := s.takeTurn(ctx, in.Run.RunID)
	if err != nil {
		return StepOutput{}, err
	}
	defer endTurn()
	place, err := s.takePlace(ctx)
	if err != nil {
		// Cancelled (or handed back) while it waited: the server runs it
		// again, or ends it.
		return StepOutput{}, err
	}
	atWork()
	defer place.free()
	l, p, fresh, done, err := s.engine(ctx, in.Run)
	if err != nil {
		return StepOutput{}, planError(err)
	}
	defer done()
	if in.Keep != nil {
		if err := keepArtifacts(ctx, l.RunDir, *in.Keep); err != nil {
			s.Log.Warn("the last iteration's files were not written", "run", in.Run.Name, "error", err)
		}
	}
	leave := s.atWorkIn(p.WorkDir)
	defer leave()
	undo, err := s.underHold(ctx, l, p, in)
	if err != nil {
		return StepOutput{}, err
	}
	defer undo()
	_ = l.Save(ctx, &state.State{}) // clears a cut attempt's marker; the store is a no-op
	refs := engine.CheckpointRefs(in.Run.Name, in.Run.RunID)
	l.Started = nil
	if s.Remote != "" {
		l.Started = func(ctx context.Context, _ int, c string) error {
			if c == in.Last {
				return nil // the run's last checkpoint, shared with its step
			}
			// The run's first checkpoint holds what it started on (the
			// uncommitted changes included): nothing on the remote could
			// rebuild it, so the agent waits for it, its place given to
			// another step's agent meanwhile: the asks of the steps that
			// start then go together in the clone's next push. Any later
			// checkpoint goes with the clone's next push, at the latest with
			// this step's end: if this worker dies before then, the step run
			// again elsewhere starts from in.Last, which differs only by
			// other runs' work in a work tree they share.
			when := firstShare(in.Last)
			back := func() {}
			if when == shareNow {
				place.free()
				back = shared.setAside()
			}
			err := s.sharing().share(ctx, p.WorkDir, s.Remote, refs, when)
			back()
			if err != nil && ctx.Err() == nil {
				s.shareFailed("the run's first checkpoint could not be shared: another worker could not take the run over from here", in.Run.Name, err)
			}
			return place.retake(ctx)
		}
	}
	// The run went on since its last step here: on another worker (or on
	// this one before it started again), or this step was moved here from a
	// worker counted gone, which may have been this one with an attempt of
	// it part way. A run whose work tree here is where its last step here
	// left it, at the run's last checkpoint, has nothing to fetch or
	// restore, whether its engine was kept or dropped since.
	left := s.leftAt(in.Run.RunID, fresh)
	wentOn := in.Moved || in.Last != "" && left != in.Last && (fresh || left != "")
	elsewhere := wentOn || info.Attempt > 1
	if s.Remote != "" && (wentOn || fresh && (elsewhere || in.Request.Checkpoint != "")) {
		if err := gitx.FetchCheckpoints(ctx, p.WorkDir, s.Remote, refs); err != nil {
			s.shareFailed("the run's checkpoints could not be fetched: its work tree is rebuilt from what this clone has", in.Run.Name, err)
		}
	}
	if in.Request.Kind == loop.StepIteration && elsewhere {
		// The worker of the last attempt died part way, or the run's work
		// tree was on another worker: start again from where the iteration
		// started, as a step is at-least-once.
		c, err := s.restart(ctx, l, in)
		if err != nil {
			return StepOutput{}, temporal.NewNonRetryableApplicationError("restore the work tree for a retried iteration: "+err.Error(), "agentloop.Restart", err)
		}
		s.Log.Info("iteration started again from its checkpoint", "run", in.Run.Name, "iteration", in.Request.Iteration, "attempt", info.Attempt, "from", c)
	}
	at.Store(l)
	res, err := l.Step(ctx, in.Request)
	if c := goneBack(ctx); c != nil {
		return StepOutput{}, c
	}
	s.Metrics.stepDone(in.Request.Kind, res, err)
	// The agent and the gates are done: the push below is git's, and
	// another step's agent may start meanwhile.
	place.free()
	leave()
	if err == nil && res.Checkpoint != "" && s.Remote != "" {
		back := shared.setAside()
		s.share(ctx, p.WorkDir, in.Run, refs)
		back()
		if c := goneBack(ctx); c != nil {
			// Stopped while its end checkpoint waited for its push, which
			// may never reach the remote: the step is no more over than one
			// whose agent was at work.
			return StepOutput{}, c
		}
	}
	if err == nil && res.Checkpoint != "" {
		s.ended(in.Run.RunID, res.Checkpoint)
	}
	return StepOutput{StepResult: res, Queue: s.Queue}, activityError(ctx, err)
}

// stepLive is what a step's heartbeat tells of its engine's live status:
// its iteration and phase, what an issue's progress comment shows; not the
// agent's tool calls (a command line) or usage.
func stepLive(ls state.LiveStatus) state.LiveStatus {
	return state.LiveStatus{Iteration: ls.Iteration, Phase: ls.Phase}
}

// goneBack is the cause of the step's stop when its worker drained and
// stopped it (it goes back to the server, to be run again elsewhere,
// whatever it came to) or a newer attempt of it took its turn (this one was
// discarded); nil otherwise.
func goneBack(ctx context.Context) error {
	if c := context.Cause(ctx); errors.Is(c, errHandedBack) || errors.Is(c, worker.ErrWorkerShutdown) || superseded(ctx) {
		return c
	}
	return nil
}

// restartTries is how many times a retried iteration's restore is tried,
// restartPause apart, before the step fails: in a work tree the runs of a
// worker share, another run's agent may write a file as git restores it
// ("unable to create file …: File exists").
const (
	restartTries = 3
	restartPause = time.Second
)

// restart restores the run's work tree to where the step's iteration
// started (its start checkpoint, else in.Last), and returns the checkpoint.
func (s *Steps) restart(ctx context.Context, l *engine.Local, in StepInput) (string, error) {
	for try := 1; ; try++ {
		c, err := l.Restart(ctx, cmp.Or(in.Request.Seq, in.Request.Iteration), in.Last)
		if err == nil || try == restartTries || ctx.Err() != nil {
			return c, err
		}
		s.Log.Warn("the work tree could not be restored for a retried iteration: trying again", "run", in.Run.Name, "try", try, "error", err)
		select {
		case <-ctx.Done():
			return c, err
		case <-time.After(restartPause):
		}
	}
}

// errHandedBack is the cause of a step stopped by its worker's drain: the
// step fails with it, and the server runs it again.
var errHandedBack = errors.New("step handed back: its worker is shutting down and the step outlasted --drain-timeout")

// draining is the step's context, cancelled with [errHandedBack] once the
// worker has been stopping for its drain time; stop ends the watch.
func (s *Steps) draining(ctx context.Context) (_ context.Context, stop func()) {
	if !activity.IsActivity(ctx) {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	stopping := activity.GetWorkerStopChannel(ctx)
	go func() {
		select {
		case <-done:
			return
		case <-stopping:
		}
		t := time.NewTimer(s.drain)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			cancel(errHandedBack)
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// share pushes the run's checkpoint refs to the shared remote; a failure is a
// warning (the run goes on here, but no other worker could take it over).
func (s *Steps) share(ctx context.Context, dir string, r RunRef, refs string) {
	err := s.sharing().share(ctx, dir, s.Remote, refs, shareEnd)
	switch {
	case err == nil:
	case goneBack(ctx) != nil:
		// Handed back, or a newer attempt took its turn, while the push
		// waited: the push goes on, and the step is not over (see Step).
		s.Log.Info("the step stopped while its checkpoints waited for their push", "run", r.Name, "cause", context.Cause(ctx))
	default:
		s.shareFailed("the run's checkpoints could not be shared: another worker could not take the run over from here", r.Name, err)
	}
}

// shareFailed logs a push or fetch of a run's checkpoints that failed: a
// credential the remote refused ([gitx.ErrDenied]) as an error, which a
// worker shows without -v (every push of the fleet fails so until a person
// mends it), anything else as a warning.
func (s *Steps) shareFailed(msg, run string, err error) {
	level := slog.LevelWarn
	if errors.Is(err, gitx.ErrDenied) {
		level = slog.LevelError
	}
	s.Log.Log(context.Background(), level, msg, "run", run, "error", err)
}

// firstShare is how a step's start checkpoint is pushed: the run's first
// (last is ""), which holds what it started on, before the agent starts; any
// other with the clone's next push.
func firstShare(last string) shareWhen {
	if last == "" {
		return shareNow
	}
	return shareLater
}

// sharing is the worker's sharer, made on its first use.
func (s *Steps) sharing() *sharer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sharer == nil {
		s.sharer = &sharer{metrics: s.Metrics, log: s.Log, atWork: func(dir string) bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.atWork[dir] > 0
		}}
	}
	return s.sharer
}

// atWorkIn counts a step at work in the work tree at dir until leave is
// called (once or more).
func (s *Steps) atWorkIn(dir string) (leave func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.atWork == nil {
		s.atWork = map[string]int{}
	}
	s.atWork[dir]++
	return sync.OnceFunc(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.atWork[dir]--; s.atWork[dir] == 0 {
			delete(s.atWork, dir)
		}
	})
}

// activityError is a step's error as it crosses to the workflow: a stop keeps
// its status and reason, any other failure is final (the step is not run
// again); a cancellation or timeout is left to the server.
func activityError(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	if se, ok := errors.AsType[*loop.StopError](err); ok {
		d := stopDetails{Status: se.Status, Reason: se.Reason}
		if se.Err != nil {
			d.Err = se.Err.Error()
		}
		return temporal.NewNonRetryableApplicationError(se.Error(), stopErrorType, err, d)
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), "agentloop.Step", err)
}

// engine is the run's local engine on this worker, built on its first step
// here (fresh); done is called when the step is over.
func (s *Steps) engine(ctx context.Context, r RunRef) (l *engine.Local, p *plan.Plan, fresh bool, done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	if w, ok := s.runs[r.RunID]; ok {
		w.busy++
		w.used = s.seq
		return w.l, w.p, false, s.release(w), nil
	}
	if t := r.Task; t != nil {
		// A task's run taken over from a worker gone for good: its worktree
		// is made here first, its work restored from its last checkpoint.
		if err := s.taskWorkTree(ctx, t.workTree()); err != nil {
			return nil, nil, false, nil, err
		}
	}
	p, err = s.Plan(ctx, r)
	if err != nil {
		return nil, nil, false, nil, fmt.Errorf("rebuild the plan of run %s: %w", r.Name, err)
	}
	runDir, err := makeRunDir(p.StateDir, r.Name, r.RunID)
	if err != nil {
		return nil, nil, false, nil, fmt.Errorf("create the run folder: %w", err)
	}
	l = engine.New(ctx, p.Parts(s.Log, runDir), engine.Options{
		RunID: r.RunID, RunDir: runDir, Store: noStore{}, Now: time.Now, Log: s.Log,
	})
	n, events := s.notifier(ctx, p, r)
	if events != nil {
		l.Events = events
	}
	if s.runs == nil {
		s.runs = map[string]*workTree{}
	}
	s.evict(ctx)
	w := &workTree{l: l, p: p, notify: n, busy: 1, used: s.seq}
	s.runs[r.RunID] = w
	return l, p, true, s.release(w), nil
}

// engineName is the name of this engine, as the state folder of a clone
// marks the runs it holds ([state.Store.MarkEngine]), the inbox and the
// notifications name it.
const engineName = "temporal"

// makeRunDir makes the run folder of run runID of name in the state folder
// stateDir, its name first marked as this engine's: a local clean leaves
// what it keeps in the clone to the server's word.
func makeRunDir(stateDir, name, runID string) (string, error) {
	s := state.Store{Root: stateDir}
	if err := s.MarkEngine(name, engineName); err != nil {
		return "", err
	}
	return s.MakeRunDir(name, runID)
}

// addWorkTree makes a task's worktree and branch in this worker's clone,
// unless they exist. The graph's base commit not in the clone is fetched from
// the shared remote.
func (s *Steps) addWorkTree(ctx context.Context, in WorkTreeInput) error {
	t := GraphTask{Repo: in.Repo, StateDir: in.StateDir}.In(s.WorkTree)
	s.git.Lock()
	defer s.git.Unlock()
	// Marked before it is made: a local clean leaves the task's worktree
	// and branch to the server's word.
	if err := (state.Store{Root: t.StateDir}).MarkEngine(tasks.TaskRunName(in.Graph, in.ID), engineName); err != nil {
		return fmt.Errorf("task %s: %w", in.ID, err)
	}
	if _, err := os.Stat(tasks.TaskWorkTree(t.StateDir, in.Graph, in.ID)); err != nil && in.Base != "" && gitx.CommitOf(ctx, t.Repo, in.Base) == "" {
		if s.Remote == "" {
			return temporal.NewNonRetryableApplicationError(fmt.Sprintf("task %s: the graph's base commit %s is not in this worker's clone %s: push it to the remote the workers' clones share, and start the workers with --checkpoint-remote naming it (or fetch it into the clone)", in.ID, in.Base, t.Repo), "agentloop.Base", nil)
		}
		if err := gitx.FetchAll(ctx, t.Repo, s.Remote); err != nil {
			return fmt.Errorf("task %s: fetch the graph's base commit %s: %w", in.ID, in.Base, err)
		}
	}
	return graph.AddTaskWorkTree(ctx, t.Repo, t.StateDir, in.Graph, in.ID, in.Base)
}

// MaxWorkTrees is how many runs' engines a worker keeps between their steps.
// A worker never learns that a run ended, so the least recently used idle one
// goes beyond that; its next step, if any, rebuilds it from its checkpoint.
const MaxWorkTrees = 256

// evict drops the least recently used idle engines beyond [MaxWorkTrees]
// (s.mu held).
func (s *Steps) evict(ctx context.Context) {
	for len(s.runs) >= MaxWorkTrees {
		var oldest string
		for id, w := range s.runs {
			if w.busy == 0 && (oldest == "" || w.used < s.runs[oldest].used) {
				oldest = id
			}
		}
		if oldest == "" {
			return // every one is in a step
		}
		s.runs[oldest].l.Close()
		closeNotifier(ctx, s.runs[oldest].notify)
		if last := s.runs[oldest].last; last != "" {
			if s.dropped == nil {
				s.dropped = map[string]string{}
			}
			for id := range s.dropped {
				if len(s.dropped) < maxDropped {
					break
				}
				delete(s.dropped, id) // any one: its next step here fetches and restores
			}
			s.dropped[oldest] = last
		}
		delete(s.runs, oldest)
	}
}

// maxDropped is how many dropped runs' checkpoints a worker remembers.
const maxDropped = 64 * MaxWorkTrees

// ended records the checkpoint a step of the run ended at on this worker.
func (s *Steps) ended(runID, checkpoint string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.runs[runID]; ok {
		w.last = checkpoint
	}
}

// leftAt is the checkpoint the run's last step on this worker ended at,
// which its work tree in this clone is still at: its kept engine's, or, for
// an engine built afresh (fresh), the one this worker recorded as it dropped
// the run's engine, a record used once; "" when this worker knows none.
func (s *Steps) leftAt(runID string, fresh bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !fresh {
		if w, ok := s.runs[runID]; ok {
			return w.last
		}
		return ""
	}
	c := s.dropped[runID]
	delete(s.dropped, runID)
	return c
}

func (s *Steps) release(w *workTree) func() {
	return func() {
		s.mu.Lock()
		w.busy--
		s.mu.Unlock()
	}
}

type noStore struct{}

func (noStore) Save(*state.State) error { return nil }
