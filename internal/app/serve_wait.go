package app

import (
	"context"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
)

// byPerson reports whether the waiting issue is changed by someone else
// than this agentloop since its last write on it ([ServeOptions.Wrote]):
// changed after that second, it is; before, it is not; in that second, a
// comment its run had not read, not agentloop's, says it is.
func (s *server) byPerson(ctx context.Context, is forge.Issue) (bool, error) {
	if s.o.Wrote == nil {
		return true, nil
	}
	at, heard := s.o.Wrote(is.Ref)
	switch {
	case at.IsZero() || is.UpdatedAt.After(at):
		return true, nil
	case is.UpdatedAt.Before(at):
		return false, nil
	}
	cs, err := s.f.Comments(ctx, is.Ref)
	if err != nil {
		return false, err
	}
	for _, c := range cs {
		if c.ID > heard && !ours(c) {
			return true, nil
		}
	}
	return false, nil
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
	for ref := range s.nobody {
		if !in[ref] {
			delete(s.nobody, ref)
		}
	}
	for ref := range s.blocked {
		if !in[ref] {
			delete(s.blocked, ref)
		}
	}
}

// due reports whether the listed issue is neither under way, nor waiting
// to be tried again, nor blocked as it was when last read (the same count
// of open blockers in the list).
func (s *server) due(is forge.Issue) bool {
	ref := is.Ref
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.blocked[ref]; ok {
		if n == is.OpenBlockers {
			return false
		}
		delete(s.blocked, ref) // a blocker closed, or another came: read it again now
	}
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
