package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/forge"
)

// DefaultServeEvery is the wait between two polls of serve's issues.
const DefaultServeEvery = time.Minute

// ServeOptions are how `agentloop serve` takes a tracker's issues.
type ServeOptions struct {
	// Query selects the open issues to take (by default those labelled
	// agentloop).
	Query forge.Query
	// Waiting selects the issues that wait for a person (labelled
	// agentloop:needs-you); each is taken again when it changed since serve
	// last saw it and since its own last write on it (Wrote): a person's
	// comment, which may answer its question, so that its run reads the
	// answer. No labels: none are watched.
	Waiting forge.Query
	// Owned are the issues whose run here owns an open pull request; each
	// is taken again on the first poll and then every OwnEvery-th (0: 5th),
	// far less often than the lists are read, since its run reads its pull
	// request in several requests ([RunIssue]). Nil: none are watched.
	Owned    func() []forge.IssueRef
	OwnEvery int
	// Wrote is when this agentloop last wrote on an issue, by the forge's
	// clock (zero: never, or not known), and the newest comment its run
	// had read then: a waiting issue changed before that changed by its
	// own writes (its question, its labels, its progress comment), not by
	// a person, and is not taken again for it; changed in that second (the
	// forge's clock counts seconds), its comments are read, and a comment
	// newer than heard, not agentloop's, is a person's. Nil: every change
	// counts.
	Wrote func(forge.IssueRef) (at time.Time, heard int64)
	// Quiet, when set, is told at each poll which waiting issues serve found
	// changed by no one but this agentloop since its last write on them, as
	// the list of waiting issues holds them now: a run of one (for its pull
	// request) need not read its comments again for an answer, since a
	// person's change takes it again.
	Quiet func(map[forge.IssueRef]bool)
	// Every is the wait between polls (0: [DefaultServeEvery]). After a poll that
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
	// Started runs of issues, and of them those that returned an error;
	// Owned those of issues taken again for their pull request.
	Started, Errors, Owned int
	// Blocked is how many times an issue was left for an open issue it is
	// blocked by.
	Blocked int
}

// Serve takes the open issues o.Query selects, as they come, and runs each
// with run, at most o.Parallel at once (and again each issue o.Waiting
// selects when someone else than this agentloop changed it, which may be a
// person's answer to its question), until ctx ends (then it waits for
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
	// nobody are the waiting issues found changed by no one but this
	// agentloop, at their updated_at then.
	nobody map[forge.IssueRef]time.Time
	// blocked are the issues found blocked by an open issue whose list
	// counted their open blockers, with that count: such an issue is not
	// read again while the count stays the same.
	blocked map[forge.IssueRef]int
}

// retry is when an issue whose run failed, or that was blocked, is taken again.
type retry struct {
	at   time.Time
	wait time.Duration
}

func newServer(f forge.Forge, o ServeOptions, run IssueRunner) *server {
	s := &server{f: f, o: o, run: run, log: o.Log, now: o.Now, sleep: o.Sleep, every: o.Every, maxWait: o.MaxWait,
		running: map[forge.IssueRef]bool{}, retry: map[forge.IssueRef]retry{}, seen: map[forge.IssueRef]time.Time{},
		nobody:  map[forge.IssueRef]time.Time{},
		blocked: map[forge.IssueRef]int{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.sleep == nil {
		s.sleep = engine.SleepContext
	}
	if s.every <= 0 {
		s.every = DefaultServeEvery
	}
	if s.maxWait <= 0 {
		s.maxWait = 15 * time.Minute
	}
	s.maxWait = max(s.maxWait, s.every)
	s.slots = make(chan struct{}, max(o.Parallel, 1))
	return s
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
