package app

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/agentloop/agentloop/internal/forge"
)

// poll reads the lists (conditional requests: unchanged, the last list
// stands) and takes each issue that is due, and each waiting issue that
// changed since serve last saw it and since its own last write on it.
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
	var moved []forge.Issue // waiting issues changed since serve saw them
	for _, is := range s.waiting {
		if at, ok := s.seen[is.Ref]; !s.running[is.Ref] && (!ok || !at.Equal(is.UpdatedAt)) {
			moved = append(moved, is)
		}
	}
	own := s.o.Owned != nil && (s.stats.Polls-1)%cmp.Or(s.o.OwnEvery, 5) == 0
	s.mu.Unlock()
	var answered []forge.IssueRef
	for _, is := range moved {
		person, err := s.byPerson(ctx, is)
		if err != nil {
			return err // not seen: read again at the next poll
		}
		s.mu.Lock()
		s.seen[is.Ref] = is.UpdatedAt
		if person {
			delete(s.nobody, is.Ref)
		} else {
			s.nobody[is.Ref] = is.UpdatedAt
		}
		s.mu.Unlock()
		if person {
			answered = append(answered, is.Ref)
		}
	}
	if s.o.Quiet != nil {
		quiet := map[forge.IssueRef]bool{}
		s.mu.Lock()
		for _, is := range s.waiting {
			if at, ok := s.nobody[is.Ref]; ok && at.Equal(is.UpdatedAt) {
				quiet[is.Ref] = true
			}
		}
		s.mu.Unlock()
		s.o.Quiet(quiet)
	}
	if own {
		for _, ref := range s.o.Owned() {
			if ctx.Err() != nil {
				return nil
			}
			if s.due(forge.Issue{Ref: ref}) {
				s.count(func(st *ServeStats) { st.Owned++ })
				s.takeOwned(ctx, ref)
			}
		}
	}
	for _, ref := range answered {
		if ctx.Err() != nil {
			return nil
		}
		if err := s.take(ctx, forge.Issue{Ref: ref}, s.o.Waiting); err != nil {
			return err
		}
	}
	for _, is := range listed {
		if ctx.Err() != nil {
			return nil
		}
		if !s.due(is) {
			continue
		}
		if err := s.take(ctx, is, s.o.Query); err != nil {
			return err
		}
	}
	return nil
}

// take waits for a free slot, then reads the listed issue whole (the list
// leaves out what it is blocked by, and may be older than another
// agentloop's claim) and runs it; an issue blocked by an open one is put
// off, and one under way (taken for its pull request at this poll) left.
func (s *server) take(ctx context.Context, listed forge.Issue, q forge.Query) error {
	ref := listed.Ref
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return nil
	}
	s.mu.Lock()
	busy := s.running[ref]
	s.mu.Unlock()
	if busy {
		<-s.slots
		return nil
	}
	is, ok, err := s.ready(ctx, ref, listed.OpenBlockers, q)
	if err != nil || !ok {
		<-s.slots
		return err
	}
	s.start(ctx, is)
	return nil
}

// takeOwned waits for a free slot and runs ref, whose run here owns an open
// pull request: as it is, closed or not, so that its run ends when the
// pull request is merged.
func (s *server) takeOwned(ctx context.Context, ref forge.IssueRef) {
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return
	}
	s.start(ctx, forge.Issue{Ref: ref})
}

// What serve's log says of a run's end, its bookkeeping done (a test waits
// on them).
const (
	serveRunFailed = "serve: the run of an issue failed; taking it again later"
	serveRunEnded  = "serve: the run of an issue ended"
)

// start runs is in a slot taken for it.
func (s *server) start(ctx context.Context, is forge.Issue) {
	ref := is.Ref
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
			s.log.Warn(serveRunFailed, "issue", ref.String(), "in", again.String(), "err", err)
		} else {
			s.log.Debug(serveRunEnded, "issue", ref.String())
		}
	}()
}

// ready reads ref as it is now: ok when it is open, still selected (no
// other agentloop claimed it since the list was read) and blocked by no
// open issue. One that is blocked waits for its list's count of open
// blockers (listed) to change, or, when the list counted none, is put off.
func (s *server) ready(ctx context.Context, ref forge.IssueRef, listed int, q forge.Query) (forge.Issue, bool, error) {
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
			if listed > 0 {
				s.mu.Lock()
				s.blocked[ref] = listed
				s.mu.Unlock()
				s.log.Info("serve: issue waits for the issue it is blocked by", "issue", ref.String(), "blocked_by", b.String(), "again", "when its open blockers change")
			} else {
				s.log.Info("serve: issue waits for the issue it is blocked by", "issue", ref.String(), "blocked_by", b.String(), "again_in", s.later(ref).String())
			}
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
