package temporal

import (
	"context"
	"slices"
	"sync"

	"go.temporal.io/sdk/worker"
)

// places are a worker's places for agents at work (--max-agents): a step
// takes one before its agent or gates start and gives it back once they end.
// A step may give its place back for a while before its agent starts (while
// the run's first checkpoint is pushed, which its agent waits for, so that
// another step's agent works meanwhile); taking one again, it goes before
// every step that has not had one yet, as its work tree was checkpointed to
// start from.
type places struct {
	mu    sync.Mutex
	free  int             // places no step holds; > 0 only when no step waits
	again []chan struct{} // steps taking a place again, first come first served
	first []chan struct{} // steps waiting for their first place, in order
}

func newPlaces(n int) *places { return &places{free: n} }

// take waits for a place and takes it; again is for a step that held one
// and gave it back for a while. The error is ctx's cause when ctx ends first.
func (p *places) take(ctx context.Context, again bool) error {
	if ctx.Err() != nil {
		return context.Cause(ctx) // a free place is not taken for a step that ended
	}
	p.mu.Lock()
	if p.free > 0 {
		p.free--
		p.mu.Unlock()
		return nil
	}
	given := make(chan struct{})
	q := &p.first
	if again {
		q = &p.again
	}
	*q = append(*q, given)
	p.mu.Unlock()
	select {
	case <-given:
		return nil
	case <-ctx.Done():
		p.mu.Lock()
		i := slices.Index(*q, given)
		if i >= 0 {
			*q = slices.Delete(*q, i, i+1)
		}
		p.mu.Unlock()
		if i < 0 {
			// The place was given as ctx ended: it goes to the next.
			p.give()
		}
		return context.Cause(ctx)
	}
}

// give hands a place back: to the first step taking one again, else to the
// first one waiting, else it is free.
func (p *places) give() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.giveLocked()
}

func (p *places) giveLocked() {
	for _, q := range []*[]chan struct{}{&p.again, &p.first} {
		if len(*q) > 0 {
			close((*q)[0])
			*q = slices.Delete(*q, 0, 1)
			return
		}
	}
	p.free++
}

// place is a step's hold on one of its worker's places; on a worker with no
// limit (p nil) it never waits, and only counts the step as running. A step's
// own goroutine uses it.
type place struct {
	p       *places
	held    bool
	metrics *Metrics // agentloop_agents_running counts the step while it holds the place
	running func()   // ends that count
}

// takePlace waits for one of the worker's places for a step, unless the
// worker has no limit.
func (s *Steps) takePlace(ctx context.Context) (*place, error) {
	h := &place{metrics: s.Metrics}
	if s.MaxAgents > 0 {
		s.mu.Lock()
		if s.places == nil {
			s.places = newPlaces(s.MaxAgents)
		}
		h.p = s.places
		s.mu.Unlock()
	}
	return h, h.take(ctx, false)
}

// take waits for a place (none when the worker has no limit), counted among
// the steps waiting meanwhile.
func (h *place) take(ctx context.Context, again bool) error {
	if h.p != nil {
		waited := h.metrics.waitingFor()
		err := h.p.take(ctx, again)
		waited()
		if err != nil {
			return err
		}
	}
	h.held, h.running = true, h.metrics.run()
	return nil
}

// free gives the place back; a second call is a no-op.
func (h *place) free() {
	if !h.held {
		return
	}
	h.held = false
	h.running()
	if h.p != nil {
		h.p.give()
	}
}

// retake takes a place again after free, before any step waiting for its
// first.
func (h *place) retake(ctx context.Context) error {
	if h.held {
		return nil
	}
	return h.take(ctx, true)
}

// sharedSteps hands out a worker's slots for steps from the queue all
// workers share (the runs' first steps): a worker takes no more of them than
// it can start soon ([sharedBeyondPlaces] beyond its places), not counting
// those waiting for a checkpoint's push with their places given away. Such a
// step waits for the clone's next push, which rests between two
// ([sharePace]), while another step works in its place; a fixed number of
// slots held by steps waiting for pushes would leave the places idle. It is
// the activity slot supplier of the worker of the shared queue
// ([sharedTuner]); the SDK calls custom suppliers experimental, so
// TestWorkerTakesFirstStepsWhileTheirPushesWait checks on a real server
// that the worker takes steps as it says.
type sharedSteps struct {
	max int

	mu      sync.Mutex
	issued  int           // permits given and not released
	aside   int           // steps holding one that wait for a push
	changed chan struct{} // closed and replaced when a permit may be given
}

func newSharedSteps(max int) *sharedSteps {
	return &sharedSteps{max: max, changed: make(chan struct{})}
}

// ReserveSlot waits for a slot, as the SDK's worker asks before it polls.
func (q *sharedSteps) ReserveSlot(ctx context.Context, _ worker.SlotReservationInfo) (*worker.SlotPermit, error) {
	for {
		q.mu.Lock()
		p, changed := q.reserve(), q.changed
		q.mu.Unlock()
		if p != nil {
			return p, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// TryReserveSlot gives a slot if one is free.
func (q *sharedSteps) TryReserveSlot(worker.SlotReservationInfo) *worker.SlotPermit {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.reserve()
}

// reserve gives a slot if one is free, nil otherwise; q.mu is held.
func (q *sharedSteps) reserve() *worker.SlotPermit {
	if q.issued-q.aside >= q.max {
		return nil
	}
	q.issued++
	return &worker.SlotPermit{}
}

func (q *sharedSteps) MarkSlotUsed(worker.SlotMarkUsedInfo) {}

// ReleaseSlot takes a permit back.
func (q *sharedSteps) ReleaseSlot(worker.SlotReleaseInfo) { q.add(-1, 0) }

// MaxSlots is 0: with steps set aside, more than max are held.
func (q *sharedSteps) MaxSlots() int { return 0 }

// setAside counts a step holding a slot as waiting for a push until back is
// called. A nil q (a worker without its own queue or places) counts nothing.
func (q *sharedSteps) setAside() (back func()) {
	if q == nil {
		return func() {}
	}
	q.add(0, 1)
	var once sync.Once
	return func() { once.Do(func() { q.add(0, -1) }) }
}

func (q *sharedSteps) add(issued, aside int) {
	q.mu.Lock()
	q.issued += issued
	q.aside += aside
	close(q.changed)
	q.changed = make(chan struct{})
	q.mu.Unlock()
}

// sharedTuner is the SDK's default tuner with the activity slots of shared.
type sharedTuner struct {
	worker.WorkerTuner
	shared *sharedSteps
}

func (t sharedTuner) GetActivityTaskSlotSupplier() worker.SlotSupplier { return t.shared }
