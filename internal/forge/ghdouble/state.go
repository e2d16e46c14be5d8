package ghdouble

import (
	"fmt"
	"strings"
	"time"
)

// Token is what a token stands for on the double.
type Token struct {
	Login string
	// Scopes are a classic token's OAuth scopes, sent back in X-OAuth-Scopes;
	// nil for a token without them (fine-grained, or an App's installation
	// token), which GitHub answers without that header and which may do what
	// the login's permissions allow.
	Scopes []string
	// ReadOnly refuses the token's pushes over git whatever its login may
	// write (an App installation's without Contents: write).
	ReadOnly bool
}

// Repo is a repository's setup.
type Repo struct {
	Private bool
	// DefaultBranch is main when empty.
	DefaultBranch string
	// Remote is a bare git repository whose branches are the repository's:
	// a pull request's head must be one of them. Empty: the branches are
	// the ones [Server.SetBranch] named, and any head is taken while none is.
	Remote string
}

// Issue is an issue as seeded and as read back.
type Issue struct {
	Number int
	Title  string
	Body   string
	Author string
	Labels []string
	// State is open (when empty) or closed.
	State string
	// BlockedBy are the numbers of the issues of the same repository this
	// one waits on (GitHub's issue dependencies).
	BlockedBy []int
	// Comments are read back, oldest first.
	Comments  []Comment
	CreatedAt time.Time
	UpdatedAt time.Time
	// PullRequest, read back, says the number is a pull request's.
	PullRequest bool
}

// Comment is an issue's or pull request's comment (or, in a [Thread], a
// review comment).
type Comment struct {
	ID     int64
	Author string
	Body   string
	// Edits are the bodies the comment had before each edit, oldest first.
	Edits     []string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// PR is a pull request as seeded and as read back.
type PR struct {
	Number int
	Title  string
	Body   string
	Author string
	// Head and Base are branch names; HeadSHA the head's commit (from the
	// branch when empty).
	Head, Base string
	HeadSHA    string
	Draft      bool
	// State is open (when empty) or closed; Merged is a closed PR merged.
	State  string
	Merged bool
	// Conflict: the head does not merge cleanly (mergeable false, dirty).
	Conflict bool
	Labels   []string
	Reviews  []Review
	Threads  []Thread
	// Comments are read back (issue comments on the pull request).
	Comments  []Comment
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CheckRun is a check run on a commit; its ID is also its Actions job's.
type CheckRun struct {
	ID   int64
	Name string
	// Status is queued, in_progress or completed (when empty); Conclusion
	// success, failure, neutral, cancelled, skipped, timed_out or
	// action_required once completed.
	Status, Conclusion string
	// Log is the job's log, served at actions/jobs/{ID}/logs.
	Log string
}

// Review is a pull request review.
type Review struct {
	ID     int64
	Author string
	// State is APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED or PENDING.
	State       string
	Body        string
	SubmittedAt time.Time
}

// Thread is a review thread on lines of a pull request's diff.
type Thread struct {
	ID       string
	Path     string
	Line     int
	Resolved bool
	Outdated bool
	Comments []Comment
}

// Request is one request the double answered.
type Request struct {
	Method, Path string
	// Endpoint is the operation's method and path template, as GitHub's
	// description names it ("GET /repos/{owner}/{repo}/issues").
	Endpoint string
	Status   int
	Login    string
}

type repo struct {
	owner, name string
	id          int64
	setup       Repo
	perms       map[string]string // login → admin, maintain, write, triage, read
	items       map[int]*item
	next        int
	branches    map[string]string // name → sha
	checks      map[string][]*CheckRun
	labels      map[string]int64 // name → id
	created     time.Time
}

type item struct {
	issue Issue
	pr    *PR
	// unknown: mergeability not yet computed since the last change (the
	// next read answers null and computes it, as GitHub's background job).
	unknown bool
}

func splitRepo(full string) (owner, name string) {
	o, n, ok := strings.Cut(full, "/")
	if !ok || o == "" || n == "" || strings.Contains(n, "/") {
		panic(fmt.Sprintf("ghdouble: %q is not owner/name", full))
	}
	return o, n
}

func repoKey(owner, name string) string { return strings.ToLower(owner + "/" + name) }

// repoLocked returns the repository, made with setup if new. s.mu is held.
func (s *Server) repoLocked(full string) *repo {
	o, n := splitRepo(full)
	if r := s.repos[repoKey(o, n)]; r != nil {
		return r
	}
	s.seq++
	r := &repo{owner: o, name: n, id: 100000 + s.seq, perms: map[string]string{o: "admin"},
		items: map[int]*item{}, branches: map[string]string{}, checks: map[string][]*CheckRun{},
		labels: map[string]int64{}, created: s.now()}
	r.setup.DefaultBranch = "main"
	s.repos[repoKey(o, n)] = r
	return r
}

func (r *repo) item(n int) *item {
	it := r.items[n]
	if it == nil {
		panic(fmt.Sprintf("ghdouble: %s/%s has no issue or pull request #%d", r.owner, r.name, n))
	}
	return it
}

func (r *repo) pr(n int) *item {
	it := r.item(n)
	if it.pr == nil {
		panic(fmt.Sprintf("ghdouble: %s/%s#%d is an issue, not a pull request", r.owner, r.name, n))
	}
	return it
}

func (r *repo) labelID(s *Server, name string) int64 {
	id, ok := r.labels[strings.ToLower(name)]
	if !ok {
		s.seq++
		id = 200000 + s.seq
		r.labels[strings.ToLower(name)] = id
	}
	return id
}
