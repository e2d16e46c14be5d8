package ghdouble

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// AddToken makes token stand for tok.Login with tok.Scopes.
func (s *Server) AddToken(token string, tok Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token] = tok
	s.userID(tok.Login)
}

// AddRepo sets up the repository full (owner/name). A repository other
// calls name is made with the defaults; its owner has admin.
func (s *Server) AddRepo(full string, setup Repo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(full)
	if setup.DefaultBranch == "" {
		setup.DefaultBranch = "main"
	}
	r.setup = setup
}

// SetPermission gives login perm (admin, maintain, write, triage, read, or
// none to take it away) on full.
func (s *Server) SetPermission(full, login, perm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(full)
	if perm == "none" || perm == "" {
		delete(r.perms, login)
		return
	}
	r.perms[login] = perm
}

// SetBranch points the branch name of full at sha.
func (s *Server) SetBranch(full, name, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(full).branches[name] = sha
}

// AddIssue adds an issue to full and returns its number.
func (s *Server) AddIssue(full string, is Issue) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(full)
	r.next++
	is.Number = r.next
	if is.State == "" {
		is.State = "open"
	}
	if is.CreatedAt.IsZero() {
		is.CreatedAt = s.now()
	}
	if is.UpdatedAt.IsZero() {
		is.UpdatedAt = is.CreatedAt
	}
	is.Labels = slices.Clone(is.Labels)
	for _, l := range is.Labels {
		r.labelID(s, l)
	}
	is.Comments = nil
	r.items[is.Number] = &item{issue: is}
	return is.Number
}

// AddComment adds a comment by author to issue or pull request n of full.
func (s *Server) AddComment(full string, n int, author, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commentLocked(s.repoLocked(full).item(n), author, body).ID
}

func (s *Server) commentLocked(it *item, author, body string) Comment {
	s.seq++
	now := s.now()
	c := Comment{ID: 300000 + s.seq, Author: author, Body: body, CreatedAt: now, UpdatedAt: now}
	it.issue.Comments = append(it.issue.Comments, c)
	it.issue.UpdatedAt = now
	return c
}

// AddPR adds a pull request someone opened and returns its number.
func (s *Server) AddPR(full string, pr PR) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addPRLocked(s.repoLocked(full), pr).issue.Number
}

func (s *Server) addPRLocked(r *repo, pr PR) *item {
	r.next++
	pr.Number = r.next
	if pr.State == "" {
		pr.State = "open"
	}
	if pr.Base == "" {
		pr.Base = r.setup.DefaultBranch
	}
	if pr.HeadSHA == "" {
		pr.HeadSHA = r.branches[pr.Head]
	}
	if pr.HeadSHA == "" {
		pr.HeadSHA = fakeSHA(r.owner, r.name, pr.Head, fmt.Sprint(pr.Number))
	}
	now := s.now()
	if pr.CreatedAt.IsZero() {
		pr.CreatedAt = now
	}
	pr.UpdatedAt = pr.CreatedAt
	for _, l := range pr.Labels {
		r.labelID(s, l)
	}
	it := &item{issue: Issue{Number: pr.Number, Title: pr.Title, Body: pr.Body, Author: pr.Author,
		Labels: slices.Clone(pr.Labels), State: pr.State, CreatedAt: pr.CreatedAt, UpdatedAt: pr.UpdatedAt, PullRequest: true},
		pr: &pr, unknown: true}
	r.items[pr.Number] = it
	return it
}

func fakeSHA(parts ...string) string {
	h := sha1.Sum([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:])
}

// AddCheckRun adds a check run on ref (a commit or a branch) of full and
// returns its id, which is also its Actions job's id.
func (s *Server) AddCheckRun(full, ref string, cr CheckRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(full)
	s.seq++
	cr.ID = 400000 + s.seq
	if cr.Status == "" {
		cr.Status = "completed"
	}
	sha := r.resolve(ref)
	r.checks[sha] = append(r.checks[sha], &cr)
	return cr.ID
}

// resolve is ref's commit: a branch's, a pull request head's, or ref.
func (r *repo) resolve(ref string) string {
	if sha, ok := r.branches[ref]; ok {
		return sha
	}
	for _, it := range r.items {
		if it.pr != nil && it.pr.Head == ref && it.pr.State == "open" {
			return it.pr.HeadSHA
		}
	}
	return ref
}

// AddReview adds a submitted review to pull request n of full.
func (s *Server) AddReview(full string, n int, rv Review) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.repoLocked(full).pr(n)
	s.seq++
	rv.ID = 500000 + s.seq
	if rv.SubmittedAt.IsZero() {
		rv.SubmittedAt = s.now()
	}
	it.pr.Reviews = append(it.pr.Reviews, rv)
	return rv.ID
}

// AddThread adds a review thread to pull request n of full and returns its
// node id.
func (s *Server) AddThread(full string, n int, th Thread) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.repoLocked(full).pr(n)
	s.seq++
	th.ID = fmt.Sprintf("PRRT_kwDO%08d", s.seq)
	th.Comments = slices.Clone(th.Comments)
	for i := range th.Comments {
		s.seq++
		th.Comments[i].ID = 600000 + s.seq
		if th.Comments[i].CreatedAt.IsZero() {
			th.Comments[i].CreatedAt = s.now()
			th.Comments[i].UpdatedAt = th.Comments[i].CreatedAt
		}
	}
	it.pr.Threads = append(it.pr.Threads, th)
	return th.ID
}

// ResolveThread marks the thread id of pull request n resolved.
func (s *Server) ResolveThread(full string, n int, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.repoLocked(full).pr(n)
	for i := range it.pr.Threads {
		if it.pr.Threads[i].ID == id {
			it.pr.Threads[i].Resolved = true
		}
	}
}

// SetConflict says whether pull request n conflicts with its base; the next
// read answers mergeable null, the one after it the new answer.
func (s *Server) SetConflict(full string, n int, conflict bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.repoLocked(full).pr(n)
	it.pr.Conflict = conflict
	it.unknown = true
}

// PushHead moves pull request n's head (and its branch) to sha, as a push.
func (s *Server) PushHead(full string, n int, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(full)
	it := r.pr(n)
	it.pr.HeadSHA = sha
	r.branches[it.pr.Head] = sha
	it.unknown = true
	it.pr.UpdatedAt = s.now()
}

// MergePR merges pull request n, as a person pressing the button.
func (s *Server) MergePR(full string, n int) { s.closePR(full, n, true) }

// ClosePR closes pull request n unmerged.
func (s *Server) ClosePR(full string, n int) { s.closePR(full, n, false) }

func (s *Server) closePR(full string, n int, merged bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.repoLocked(full).pr(n)
	it.pr.State, it.issue.State, it.pr.Merged = "closed", "closed", merged
	it.pr.UpdatedAt = s.now()
	it.issue.UpdatedAt = it.pr.UpdatedAt
}

// CloseIssue closes issue n.
func (s *Server) CloseIssue(full string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.repoLocked(full).item(n)
	it.issue.State = "closed"
	it.issue.UpdatedAt = s.now()
}
