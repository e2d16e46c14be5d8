package temporal

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/gitx"
)

// sharer pushes the runs' checkpoint refs from a worker's clones to the
// remote the workers share. A push costs the same few git processes and the
// remote's whole ref list whatever it carries, so the runs of a worker take
// turns: the refs asked for while a push is under way go together in the
// next one, one push at a time per clone, and while other steps are at work
// in a clone its pushes rest between them ([sharePace]). A caller that waits
// returns when a push that started after its ask has ended.
type sharer struct {
	// push sends the refs under prefixes from the clone at dir
	// (gitx.ShareCheckpoints; a test records them).
	push func(ctx context.Context, dir, remote string, prefixes ...string) error
	// metrics count the pushes (nil: none).
	metrics *Metrics
	// atWork reports whether steps of the worker are at work in the clone
	// at dir (their agents or gates running): each will ask for its end
	// checkpoint to be pushed from there soon, so a push of that clone waits
	// a moment for them ([shareLinger]). nil: never.
	atWork func(dir string) bool
	// linger is how long a push waits for them ([shareLinger] for 0).
	linger time.Duration
	// pace is how many times its own length a clone's push rests before the
	// next while steps are at work there ([sharePace] for 0), up to restMax
	// ([shareRestMax] for 0).
	pace    float64
	restMax time.Duration
	// pack packs the refs of the clone at dir (gitx.PackRefs; a test
	// records it), once its pushes have carried packEvery asks
	// ([sharePackEvery] for 0) since the last.
	pack      func(ctx context.Context, dir string) error
	packEvery int
	// log tells of a pack that failed (nil: nobody).
	log *slog.Logger

	mu     sync.Mutex
	next   map[string]*shareRound // by clone: the push the next asks join
	busy   map[string]bool        // by clone: a push is under way
	unpack map[string]int         // by clone: the asks pushed since its refs were packed
	rested map[string]time.Time   // by clone: when its last push has rested ([sharePace])
}

// shareRound is one push of a clone's refs.
type shareRound struct {
	prefixes []string
	asks     int
	first    time.Time     // the first ask's
	now      bool          // a step's agent waits for it: no lingering
	hurry    chan struct{} // closed when now is set
	done     chan struct{} // closed when the push has ended
	err      error         // the push's, once done is closed
}

// shareLinger is how long after its first ask a push waits, when other
// steps of the worker are at work in its clone, for their asks to go with it: many runs
// on a worker make fewer pushes (a push costs as much for one run's refs as
// for a hundred), for a step's end at most this much later. A worker with
// one step at a time pushes at once.
const shareLinger = time.Second

// sharePace is how many times its own length a clone's push rests before the
// next one starts, while steps of the worker are at work in that clone: the
// asks made meanwhile go together. Pushes back to back would take a git
// process or more of the machine's cores all the time, most of it the
// kernel's work of starting git's processes whatever a push carries (a
// push is about ten of them, on both sides); resting twice as long as they
// take, a clone's pushes use at most a third of that, and carry three times
// the asks each when the worker is loaded: a push takes longer then, so the
// rest does. A run that has the clone to itself never waits for it, nor
// does a push after one that failed.
const sharePace = 2

// shareRestMax bounds a rest: a push that took long (a slow remote, a
// large first push) saved no more processes by a longer one.
const shareRestMax = 5 * time.Second

// sharePackEvery is how many asks a clone's pushes carry between two packs
// of its refs: a run's checkpoints leave a loose ref or two an ask in the
// clone, and each push reads them all (0.25 s a push from a clone of 6,000
// loose refs, 0.13 s packed); git packs them only in a gc, which nothing a
// worker runs starts.
const sharePackEvery = 256

// sharePushTimeout bounds one push: it runs for every run that asked, so no
// one step's context ends it, and a remote that never answers does not hold
// the clone's pushes forever.
const sharePushTimeout = 5 * time.Minute

// shareWhen is how an ask for a push waits for it.
type shareWhen int

const (
	shareLater shareWhen = iota // not at all: the refs go with the clone's next push
	shareEnd                    // a step's end: the push may wait for other steps' ends (shareLinger)
	shareNow                    // a step's agent waits for it: the push does not linger (it rests all the same: sharePace)
)

// share asks for the checkpoint refs under prefix in the clone at dir to be
// pushed to remote (the same for every ask: the worker's). Unless when is
// shareLater, it returns the error of the push that carried them, or ctx's
// when ctx ends first; with shareLater it returns at once.
func (s *sharer) share(ctx context.Context, dir, remote, prefix string, when shareWhen) error {
	s.mu.Lock()
	if s.next == nil {
		s.next, s.busy, s.unpack, s.rested = map[string]*shareRound{}, map[string]bool{}, map[string]int{}, map[string]time.Time{}
	}
	r := s.next[dir]
	if r == nil {
		r = &shareRound{done: make(chan struct{}), hurry: make(chan struct{}), first: time.Now()}
		s.next[dir] = r
	}
	r.asks++
	if when == shareNow && !r.now {
		r.now = true
		close(r.hurry)
	}
	if !slices.Contains(r.prefixes, prefix) {
		r.prefixes = append(r.prefixes, prefix)
	}
	lead := !s.busy[dir]
	s.busy[dir] = true
	s.mu.Unlock()
	if lead {
		go s.lead(context.WithoutCancel(ctx), dir, remote)
	}
	if when == shareLater {
		return nil
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// lead pushes the clone's rounds one after the other until no one asks.
// While steps are at work in the clone, a round waits for its rest after the
// last push ([sharePace]), and one no agent waits for also lingers
// ([shareLinger]).
func (s *sharer) lead(ctx context.Context, dir, remote string) {
	for {
		s.mu.Lock()
		if r := s.next[dir]; r != nil && s.atWork != nil && s.atWork(dir) {
			rested, lingers := s.rested[dir], !r.now
			s.mu.Unlock()
			if lingers {
				waitUntil(r.first.Add(cmp.Or(s.linger, shareLinger)), r.hurry) // cut by an ask a step's agent waits for
			}
			waitUntil(rested, nil)
			s.mu.Lock()
		}
		r := s.next[dir]
		delete(s.next, dir)
		if r == nil {
			s.busy[dir] = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		start := time.Now()
		pctx, cancel := context.WithTimeout(ctx, sharePushTimeout)
		r.err = s.pushFunc()(pctx, dir, remote, r.prefixes...)
		cancel()
		rest := min(time.Duration(cmp.Or(s.pace, sharePace)*float64(time.Since(start))), cmp.Or(s.restMax, shareRestMax))
		if r.err != nil {
			rest = 0 // its failure is no cost to save on: the next is not held back
		}
		s.mu.Lock()
		s.rested[dir] = time.Now().Add(rest)
		s.mu.Unlock()
		s.metrics.pushed(r.asks, r.err)
		close(r.done)
		s.packIfDue(ctx, dir, r.asks)
	}
}

// waitUntil returns at t, or when cut is closed before (nil: never).
func waitUntil(t time.Time, cut <-chan struct{}) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-cut:
	}
}

// packIfDue packs the refs of the clone at dir once its pushes have carried
// [sharePackEvery] asks since the last pack; between two of its pushes, so
// that none reads them half packed. The steps whose asks the last push
// carried do not wait for it; a push asked for meanwhile starts after it. It
// is bounded as a push is.
func (s *sharer) packIfDue(ctx context.Context, dir string, asks int) {
	s.mu.Lock()
	s.unpack[dir] += asks
	due := s.unpack[dir] >= cmp.Or(s.packEvery, sharePackEvery)
	if due {
		s.unpack[dir] = 0
	}
	s.mu.Unlock()
	if !due {
		return
	}
	pack := s.pack
	if pack == nil {
		pack = gitx.PackRefs
	}
	pctx, cancel := context.WithTimeout(ctx, sharePushTimeout)
	defer cancel()
	if err := pack(pctx, dir); err != nil && s.log != nil {
		s.log.Warn("the clone's refs could not be packed: its pushes read them loose", "dir", dir, "error", err)
	}
}

// pushFunc is the push a test set, else gitx.ShareCheckpoints.
func (s *sharer) pushFunc() func(ctx context.Context, dir, remote string, prefixes ...string) error {
	if s.push != nil {
		return s.push
	}
	return gitx.ShareCheckpoints
}
