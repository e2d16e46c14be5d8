// Package forge is the tracker and pull-request client: the issues a run is
// taken from, the labels and the one progress comment agentloop keeps on
// them, the pull request it opens from a run's branch, and the checks,
// reviews and threads it reads back as evidence. [Forge] is the small
// interface the application talks to; GitHub (github.com and GitHub
// Enterprise, through GH_HOST) implements it first, so GitLab or Forgejo can
// follow.
//
// Everything here is written by agentloop, never by the agent, and every
// text it returns that a person outside the repository's writers wrote is
// untrusted: [Comment.Trusted] says which is which, from the repository's
// own permissions, not from what a comment claims.
package forge

import (
	"context"
	"errors"
	"time"
)

// Issue is an issue as agentloop reads it.
type Issue struct {
	Ref    IssueRef
	Title  string
	Body   string
	Author string
	// Trusted says the author may write to the repository ([Permission.CanWrite]).
	Trusted bool
	Labels  []string
	// Open is false for a closed issue.
	Open bool
	URL  string
	// BlockedBy are the issues this one waits on (GitHub's issue
	// dependencies), for a graph's depends_on.
	BlockedBy []IssueRef
	// OpenBlockers is how many open issues this one is blocked by, as the
	// forge counts them in a list (GitHub's issue_dependencies_summary);
	// 0 when none or when the forge does not say. A list gives the count
	// without BlockedBy: serve does not read an issue it found blocked
	// again while its count stays the same.
	OpenBlockers int
	UpdatedAt    time.Time
}

// Comment is a comment on an issue or pull request.
type Comment struct {
	ID     int64
	Author string
	// Trusted says the author may write to the repository, as the
	// repository's permissions say; only a trusted comment is taken as a
	// command or as context the agent may follow.
	Trusted   bool
	Body      string
	URL       string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Permission is a person's permission on a repository.
type Permission string

// The permissions GitHub names (collaborators/{user}/permission).
const (
	PermissionAdmin    Permission = "admin"
	PermissionMaintain Permission = "maintain"
	PermissionWrite    Permission = "write"
	PermissionTriage   Permission = "triage"
	PermissionRead     Permission = "read"
	PermissionNone     Permission = "none"
)

// CanWrite reports whether p lets its holder push: only such a person's
// words are taken as commands or trusted context.
func (p Permission) CanWrite() bool {
	return p == PermissionAdmin || p == PermissionMaintain || p == PermissionWrite
}

// PRSpec is the pull request agentloop opens or updates from a run's branch.
type PRSpec struct {
	Repo Repo
	// Head is the branch the run's work is on; Base the branch it goes into.
	Head, Base string
	Title      string
	Body       string
	Draft      bool
}

// PR is a pull request.
type PR struct {
	Repo    Repo
	Number  int
	URL     string
	Head    string
	HeadSHA string
	Base    string
	// State is open, closed or merged.
	State PRState
	// Conflict says GitHub found the head does not merge cleanly into the base.
	Conflict bool
}

// PRState is a pull request's state.
type PRState string

// The states of a pull request.
const (
	PROpen   PRState = "open"
	PRClosed PRState = "closed"
	PRMerged PRState = "merged"
)

// Check is one check run on a pull request's head commit.
type Check struct {
	Name string
	// Status is queued, in_progress or completed; Conclusion, once
	// completed, success, failure, neutral, cancelled, skipped, timed_out or
	// action_required.
	Status, Conclusion string
	URL                string
	// LogTail is the end of the failing job's log, when one could be read.
	LogTail string
}

// Failed reports whether the check completed without success.
func (c Check) Failed() bool {
	switch c.Conclusion {
	case "failure", "timed_out", "cancelled", "action_required":
		return c.Status == "completed"
	}
	return false
}

// Review is a review of a pull request.
type Review struct {
	ID      int64
	Author  string
	Trusted bool
	// State is APPROVED, CHANGES_REQUESTED, COMMENTED or DISMISSED.
	State       string
	Body        string
	SubmittedAt time.Time
}

// Thread is an unresolved review thread: a conversation on lines of the diff.
type Thread struct {
	Path     string
	Line     int
	Comments []Comment
}

// PRStatus is what agentloop reads back of a pull request it owns.
type PRStatus struct {
	PR       PR
	Checks   []Check
	Reviews  []Review
	Threads  []Thread
	Comments []Comment
}

// Query selects open issues of a repository.
type Query struct {
	Repo Repo
	// Labels must all be on an issue.
	Labels []string
}

// Forge is a tracker and its pull requests. Every method may block on the
// network and honours ctx; a rate limit is waited out inside (with backoff,
// never a tight loop) until ctx ends.
type Forge interface {
	// Issue reads an issue, with whether its author may write.
	Issue(ctx context.Context, ref IssueRef) (Issue, error)
	// Issues lists the open issues q selects. changed is false when nothing
	// changed since the last call with the same q (a conditional request
	// GitHub does not count against the rate limit); issues is then nil.
	Issues(ctx context.Context, q Query) (issues []Issue, changed bool, err error)
	// Comments are an issue's or pull request's comments, oldest first,
	// each with whether its author may write.
	Comments(ctx context.Context, ref IssueRef) ([]Comment, error)
	// Permission is login's permission on repo.
	Permission(ctx context.Context, repo Repo, login string) (Permission, error)
	// Label adds the labels add to ref and takes remove off it (creating
	// none that the repository lacks is the forge's business: GitHub makes
	// a label it does not know).
	Label(ctx context.Context, ref IssueRef, add, remove []string) error
	// Comment adds a comment to ref.
	Comment(ctx context.Context, ref IssueRef, body string) (Comment, error)
	// EditComment replaces the body of the comment id on ref's repository.
	EditComment(ctx context.Context, repo Repo, id int64, body string) (Comment, error)
	// OpenPR opens the pull request of spec, or updates the open one from
	// spec.Head (title and body), so a restart never opens a second.
	OpenPR(ctx context.Context, spec PRSpec) (PR, error)
	// PRStatus reads a pull request, its head's checks (a failing one's
	// log tail), its reviews, unresolved threads and comments.
	PRStatus(ctx context.Context, repo Repo, number int) (PRStatus, error)
}

// Marker is the hidden line that names the comment agentloop keeps up to
// date on an issue: found again after a restart, never duplicated.
func Marker(kind string) string { return "<!-- agentloop:" + kind + " -->" }

// The errors a forge names, each wrapped with what was asked and what to do.
var (
	// ErrAuth: no token, or the token was refused (401).
	ErrAuth = errors.New("not authenticated")
	// ErrScope: the token lacks a permission the request needs (403
	// without a rate limit).
	ErrScope = errors.New("the token lacks a needed permission")
	// ErrNotFound: no such repository, issue or pull request, or one the
	// token cannot see (404).
	ErrNotFound = errors.New("not found")
	// ErrRateLimited: the rate limit outlasted the caller's context.
	ErrRateLimited = errors.New("rate limited")
	// ErrUnreachable: the forge did not answer.
	ErrUnreachable = errors.New("the forge did not answer")
	// ErrRefused: the forge refused what was asked (422: a pull request
	// from a branch it cannot see, a label it cannot add).
	ErrRefused = errors.New("refused")
)
