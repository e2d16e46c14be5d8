package ghdouble

import (
	"maps"
	"slices"
	"sort"
)

// Issue reads back issue (or pull request) n of full: its labels, state and
// comments with their edits.
func (s *Server) Issue(full string, n int) (Issue, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repoKey(splitRepo(full))]
	if r == nil || r.items[n] == nil {
		return Issue{}, false
	}
	return cloneIssue(r.items[n].issue), true
}

// Issues reads back every issue and pull request of full, by number.
func (s *Server) Issues(full string) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repoKey(splitRepo(full))]
	if r == nil {
		return nil
	}
	var out []Issue
	for _, n := range r.numbers() {
		out = append(out, cloneIssue(r.items[n].issue))
	}
	return out
}

// PR reads back pull request n of full.
func (s *Server) PR(full string, n int) (PR, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repoKey(splitRepo(full))]
	if r == nil || r.items[n] == nil || r.items[n].pr == nil {
		return PR{}, false
	}
	return clonePR(r.items[n]), true
}

// PRs reads back the pull requests of full, by number: those seeded and
// those the API opened.
func (s *Server) PRs(full string) []PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repoKey(splitRepo(full))]
	if r == nil {
		return nil
	}
	var out []PR
	for _, n := range r.numbers() {
		if it := r.items[n]; it.pr != nil {
			out = append(out, clonePR(it))
		}
	}
	return out
}

func (r *repo) numbers() []int {
	ns := slices.Collect(maps.Keys(r.items))
	sort.Ints(ns)
	return ns
}

func cloneIssue(is Issue) Issue {
	is.Labels = slices.Clone(is.Labels)
	is.BlockedBy = slices.Clone(is.BlockedBy)
	is.Comments = slices.Clone(is.Comments)
	for i := range is.Comments {
		is.Comments[i].Edits = slices.Clone(is.Comments[i].Edits)
	}
	return is
}

func clonePR(it *item) PR {
	pr := *it.pr
	is := cloneIssue(it.issue)
	pr.Title, pr.Body, pr.Author, pr.Labels, pr.Comments = is.Title, is.Body, is.Author, is.Labels, is.Comments
	pr.State, pr.UpdatedAt = is.State, is.UpdatedAt
	pr.Reviews = slices.Clone(pr.Reviews)
	pr.Threads = slices.Clone(pr.Threads)
	return pr
}

// Requests are the requests answered so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Count is how many requests the endpoint ("GET /repos/{owner}/{repo}/issues")
// was asked, counted or not against the rate limit.
func (s *Server) Count(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if r.Endpoint == endpoint {
			n++
		}
	}
	return n
}

// Counts are the requests per endpoint.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]int{}
	for _, r := range s.log {
		m[r.Endpoint]++
	}
	return m
}

// NotModified is how many conditional requests were answered 304 Not
// Modified, which GitHub does not count against the rate limit.
func (s *Server) NotModified() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if r.Status == 304 {
			n++
		}
	}
	return n
}
