package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
)

// ServeOptions are how `agentloop serve` takes a tracker's issues.
type ServeOptions struct {
	// Query selects the open issues to take (by default those labelled
	// agentloop).
	Query forge.Query
	// Waiting selects the issues that wait for a person (labelled
	// agentloop:needs-you); each is taken again when it changed since serve
	// last saw it (a comment that may answer its question), so that its run
	// reads the answer. No labels: none are watched.
	Waiting forge.Query
	// Every is the wait between polls (0: a minute). After a poll that
	// failed the wait doubles, up to MaxWait (0: 15 minutes), and falls
	// back to Every after one that did not.
	Every, MaxWait time.Duration
	// Parallel is how many issues run at once (0: one).
	Parallel int
	// Once polls once, runs what it found, waits for those runs and returns.
	Once bool
	// Now and Sleep are the clock (nil: the real one); Sleep returns ctx's
	// error when ctx ends first.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Log says what serve does: each issue taken, each poll that failed.
	Log *slog.Logger
}

// IssueRunner runs one issue as `agentloop run --issue` does: from its
// claim to its pull request or to a question for a person. An issue it
// cannot take (another agentloop claimed it first) is no error.
type IssueRunner func(ctx context.Context, is forge.Issue) error

// ServeStats counts what a serve did.
type ServeStats struct {
	// Polls of the issue list, and of them those that found it changed
	// (the others cost no request against the rate limit).
	Polls, Changed int
	// Failed polls, waited out with backoff.
	Failed int
	// Started runs of issues, and of them those that returned an error.
	Started, Errors int
	// Blocked is how many times an issue was left for an open issue it is
	// blocked by.
	Blocked int
}

// Serve takes the open issues o.Query selects, as they come, and runs each
// with run, at most o.Parallel at once (and again each issue o.Waiting
// selects when it changed, which may be a person's answer to its question), until ctx ends (then it waits for
// the runs under way, which end as a run ends on Ctrl-C) or, with o.Once,
// after one poll. An issue is taken once while it stays in the list: its
// run moves its labels, so a claimed issue leaves the list; one whose run
// failed is taken again after a wait that doubles each time. An issue
// blocked by an open issue waits until that one is closed. A poll that
// fails is waited out with backoff; a token refused (forge.ErrAuth,
// forge.ErrScope) ends serve with the error, since no wait mends it.
func Serve(ctx context.Context, f forge.Forge, o ServeOptions, run IssueRunner) (ServeStats, error) {
	s := newServer(f, o, run)
	err := s.serve(ctx)
	s.wg.Wait()
	return s.result(), err
}

// serve polls until ctx ends, or once.
func (s *server) serve(ctx context.Context) error {
	wait := s.every
	for {
		err := s.poll(ctx)
		switch {
		case err == nil:
			wait = s.every
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, forge.ErrAuth) || errors.Is(err, forge.ErrScope):
			return fmt.Errorf("serve: %w", err)
		default:
			s.count(func(st *ServeStats) { st.Failed++ })
			s.log.Warn("serve: poll failed; trying again", "in", wait.String(), "err", err)
		}
		if s.o.Once {
			return err
		}
		if s.sleep(ctx, wait) != nil {
			return nil
		}
		if err != nil {
			wait = min(2*wait, s.maxWait)
		}
	}
}

// server is one Serve's state: the issues under way and those that failed,
// keyed by reference, both pruned to the issues the last list held, so its
// memory follows the list, not the time it runs.
type server struct {
	f              forge.Forge
	o              ServeOptions
	run            IssueRunner
	log            *slog.Logger
	now            func() time.Time
	sleep          func(context.Context, time.Duration) error
	every, maxWait time.Duration
	slots          chan struct{}
	wg             sync.WaitGroup

	mu      sync.Mutex
	stats   ServeStats
	running map[forge.IssueRef]bool
	retry   map[forge.IssueRef]retry
	listed  []forge.Issue // the last list that changed
	waiting []forge.Issue // the last list of Waiting that changed
	seen    map[forge.IssueRef]time.Time
}

// retry is when an issue whose run failed, or that was blocked, is taken again.
type retry struct {
	at   time.Time
	wait time.Duration
}

func newServer(f forge.Forge, o ServeOptions, run IssueRunner) *server {
	s := &server{f: f, o: o, run: run, log: o.Log, now: o.Now, sleep: o.Sleep, every: o.Every, maxWait: o.MaxWait,
		running: map[forge.IssueRef]bool{}, retry: map[forge.IssueRef]retry{}, seen: map[forge.IssueRef]time.Time{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.sleep == nil {
		s.sleep = sleepCtx
	}
	if s.every <= 0 {
		s.every = time.Minute
	}
	if s.maxWait <= 0 {
		s.maxWait = 15 * time.Minute
	}
	s.maxWait = max(s.maxWait, s.every)
	s.slots = make(chan struct{}, max(o.Parallel, 1))
	return s
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s *server) count(f func(*ServeStats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

func (s *server) result() ServeStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// poll reads the lists (conditional requests: unchanged, the last list
// stands) and takes each issue that is due, and each waiting issue that
// changed since serve last saw it.
func (s *server) poll(ctx context.Context) error {
	issues, changed, err := s.f.Issues(ctx, s.o.Query)
	if err != nil {
		return err
	}
	var waiting []forge.Issue
	wchanged := false
	if len(s.o.Waiting.Labels) > 0 {
		if waiting, wchanged, err = s.f.Issues(ctx, s.o.Waiting); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.stats.Polls++
	if changed {
		s.stats.Changed++
		s.listed = issues
	}
	if wchanged {
		s.waiting = waiting
	}
	if changed || wchanged {
		s.prune()
	}
	listed := s.listed
	var answered []forge.IssueRef
	for _, is := range s.waiting {
		if at, ok := s.seen[is.Ref]; !s.running[is.Ref] && (!ok || !at.Equal(is.UpdatedAt)) {
			s.seen[is.Ref] = is.UpdatedAt
			answered = append(answered, is.Ref)
		}
	}
	s.mu.Unlock()
	for _, ref := range answered {
		if ctx.Err() != nil {
			return nil
		}
		if err := s.take(ctx, ref, s.o.Waiting); err != nil {
			return err
		}
	}
	for _, is := range listed {
		if ctx.Err() != nil {
			return nil
		}
		if !s.due(is.Ref) {
			continue
		}
		if err := s.take(ctx, is.Ref, s.o.Query); err != nil {
			return err
		}
	}
	return nil
}

// prune forgets the issues neither list holds, so that serve's memory
// follows the lists, not the time it runs.
func (s *server) prune() {
	in := make(map[forge.IssueRef]bool, len(s.listed)+len(s.waiting))
	for _, is := range s.listed {
		in[is.Ref] = true
	}
	for _, is := range s.waiting {
		in[is.Ref] = true
	}
	for ref := range s.retry {
		if !in[ref] {
			delete(s.retry, ref)
		}
	}
	for ref := range s.seen {
		if !in[ref] {
			delete(s.seen, ref)
		}
	}
}

// due reports whether ref is neither under way nor waiting to be tried again.
func (s *server) due(ref forge.IssueRef) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, waiting := s.retry[ref]
	return !s.running[ref] && (!waiting || !s.now().Before(r.at))
}

// later puts ref off: the wait doubles from Every each time, up to MaxWait.
func (s *server) later(ref forge.IssueRef) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.laterLocked(ref)
}

func (s *server) laterLocked(ref forge.IssueRef) time.Duration {
	w := s.every
	if r, ok := s.retry[ref]; ok {
		w = min(2*r.wait, s.maxWait)
	}
	s.retry[ref] = retry{at: s.now().Add(w), wait: w}
	return w
}

// take waits for a free slot, then reads ref whole (the list leaves out
// what it is blocked by, and may be older than another agentloop's claim)
// and runs it; an issue blocked by an open one is put off.
func (s *server) take(ctx context.Context, ref forge.IssueRef, q forge.Query) error {
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return nil
	}
	is, ok, err := s.ready(ctx, ref, q)
	if err != nil || !ok {
		<-s.slots
		return err
	}
	s.mu.Lock()
	s.running[ref] = true
	s.stats.Started++
	s.mu.Unlock()
	s.log.Info("serve: taking issue", "issue", ref.String(), "title", is.Title)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.slots }()
		err := s.run(ctx, is)
		s.mu.Lock()
		delete(s.running, ref)
		if err != nil {
			s.stats.Errors++
		} else {
			// Its run moved its labels, so the next list leaves it out;
			// until that list is read it is not taken again.
			delete(s.retry, ref)
		}
		again := s.laterLocked(ref)
		s.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			s.log.Warn("serve: the run of an issue failed; taking it again later", "issue", ref.String(), "in", again.String(), "err", err)
		}
	}()
	return nil
}

// ready reads ref as it is now: ok when it is open, still selected (no
// other agentloop claimed it since the list was read) and blocked by no
// open issue; one that is blocked is put off.
func (s *server) ready(ctx context.Context, ref forge.IssueRef, q forge.Query) (forge.Issue, bool, error) {
	is, err := s.f.Issue(ctx, ref)
	if errors.Is(err, forge.ErrNotFound) {
		return is, false, nil // gone since the list: the next list says so
	}
	if err != nil || !is.Open || !hasLabels(is.Labels, q.Labels) {
		return is, false, err
	}
	for _, b := range is.BlockedBy {
		blocker, err := s.f.Issue(ctx, b)
		if errors.Is(err, forge.ErrNotFound) {
			continue // an issue the token cannot see blocks nothing it can act on
		}
		if err != nil {
			return is, false, err
		}
		if blocker.Open {
			s.count(func(st *ServeStats) { st.Blocked++ })
			s.log.Info("serve: issue waits for the issue it is blocked by", "issue", ref.String(), "blocked_by", b.String(), "again_in", s.later(ref).String())
			return is, false, nil
		}
	}
	return is, true, nil
}

// hasLabels reports whether have holds every label of want.
func hasLabels(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
