package github

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/forge/ghdouble"
	"github.com/google/go-cmp/cmp"
)

// TestAgainstDouble drives the client through an issue's life against the
// GitHub double, over HTTPS with its test CA at GitHub Enterprise's paths:
// the double checks every answer against GitHub's OpenAPI description, so
// the client is held to GitHub's shapes, not to this package's own fakes.
func TestAgainstDouble(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	var slept []time.Duration
	s := ghdouble.Start(t, ghdouble.Options{TLS: true, Now: clock})
	s.AddToken(token, ghdouble.Token{Login: "agent", Scopes: []string{"repo"}})
	const full = "acme/tool"
	s.AddRepo(full, ghdouble.Repo{})
	for login, perm := range map[string]string{"agent": "write", "maint": "maintain", "reader": "read"} {
		s.SetPermission(full, login, perm)
	}
	first := s.AddIssue(full, ghdouble.Issue{Title: "the first", Author: "maint", Labels: []string{"agentloop"}})
	blocked := s.AddIssue(full, ghdouble.Issue{Title: "the second", Author: "reader", Labels: []string{"agentloop"}, BlockedBy: []int{first}})
	for i := range 110 {
		s.AddIssue(full, ghdouble.Issue{Title: fmt.Sprint("more ", i), Author: "stranger", Labels: []string{"agentloop"}})
	}
	s.AddIssue(full, ghdouble.Issue{Title: "not ours", Author: "maint"})

	var logs syncBuffer
	c, err := New(Options{Host: s.Host(), Token: token, Transport: s.Client().Transport, Now: clock,
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			slept, now = append(slept, d), now.Add(d)
			mu.Unlock()
			return ctx.Err()
		},
		Log: newTextLog(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	repo := forge.Repo{Host: s.Host(), Owner: "acme", Name: "tool"}
	ref := func(n int) forge.IssueRef { return forge.IssueRef{Repo: repo, Number: n} }

	// Intake: two pages, then unchanged at no cost.
	is, changed, err := c.Issues(ctx, forge.Query{Repo: repo, Labels: []string{"agentloop"}})
	if err != nil || !changed || len(is) != 112 || is[0].Ref.Number == 0 {
		t.Fatalf("Issues() = %d issues, %v, %v; want 112, changed", len(is), changed, err)
	}
	trusted := map[string]bool{}
	for _, i := range is {
		trusted[i.Author] = i.Trusted
	}
	if diff := cmp.Diff(map[string]bool{"maint": true, "reader": false, "stranger": false}, trusted); diff != "" {
		t.Errorf("trust (-want +got):\n%s", diff)
	}
	// Two pages, and the permission of the two collaborators only: 110
	// issues by a stranger cost no request.
	if diff := cmp.Diff(map[string]int{"GET /repos/{owner}/{repo}/issues": 2, "GET /repos/{owner}/{repo}/collaborators/{username}/permission": 2}, s.Counts()); diff != "" {
		t.Errorf("requests of the first poll (-want +got):\n%s", diff)
	}
	before := c.Stats()
	if is, changed, err := c.Issues(ctx, forge.Query{Repo: repo, Labels: []string{"agentloop"}}); err != nil || changed || is != nil {
		t.Fatalf("Issues() again = %d, %v, %v; want unchanged", len(is), changed, err)
	}
	if after := c.Stats(); after.Requests != before.Requests || after.Conditional304 != before.Conditional304+2 || s.NotModified() != 2 {
		t.Errorf("Stats() %+v → %+v, the double's 304s %d; want two free conditional requests", before, after, s.NotModified())
	}

	// The issue, its dependencies; a secondary rate limit on the way.
	s.SecondaryLimit("GET", fmt.Sprintf("/repos/%s/issues/%d", full, blocked), 1, 403, 30*time.Second)
	got, err := c.Issue(ctx, ref(blocked))
	if err != nil || got.Title != "the second" || got.Trusted || !cmp.Equal(got.BlockedBy, []forge.IssueRef{ref(first)}) {
		t.Fatalf("Issue(%d) = %+v, %v", blocked, got, err)
	}
	if !slices.Contains(slept, 30*time.Second) {
		t.Errorf("waits %v, want the secondary limit's 30s", slept)
	}

	// Claim, the progress comment, a person's comments.
	if err := c.Label(ctx, ref(first), []string{"agentloop:running"}, []string{"agentloop", "agentloop:needs-you"}); err != nil {
		t.Fatal(err)
	}
	if back, _ := s.Issue(full, first); !cmp.Equal(back.Labels, []string{"agentloop:running"}) {
		t.Errorf("labels on the double: %q", back.Labels)
	}
	cm, err := c.Comment(ctx, ref(first), forge.Marker("progress")+"\niteration 1")
	if err != nil || !cm.Trusted || cm.Author != "agent" {
		t.Fatalf("Comment() = %+v, %v", cm, err)
	}
	if _, err := c.EditComment(ctx, repo, cm.ID, forge.Marker("progress")+"\niteration 2"); err != nil {
		t.Fatal(err)
	}
	s.AddComment(full, first, "stranger", "/agentloop accept")
	s.AddComment(full, first, "maint", "/agentloop guide use the cache")
	cs, err := c.Comments(ctx, ref(first))
	if err != nil || len(cs) != 3 || !strings.HasSuffix(cs[0].Body, "iteration 2") || cs[1].Trusted || !cs[2].Trusted {
		t.Fatalf("Comments() = %+v, %v", cs, err)
	}

	// The pull request: opened once, updated on a restart.
	s.SetBranch(full, "main", "0000000000000000000000000000000000000000")
	s.SetBranch(full, "agentloop/issue-1", "1111111111111111111111111111111111111111")
	spec := forge.PRSpec{Repo: repo, Head: "agentloop/issue-1", Base: "main", Title: "Fix the first", Body: "Closes #1"}
	pr, err := c.OpenPR(ctx, spec)
	if err != nil || pr.Number == 0 || pr.State != forge.PROpen {
		t.Fatalf("OpenPR() = %+v, %v", pr, err)
	}
	spec.Body = "Closes #1\n\nwith the receipt"
	if again, err := c.OpenPR(ctx, spec); err != nil || again.Number != pr.Number {
		t.Fatalf("OpenPR() again = %+v, %v; want #%d updated", again, err, pr.Number)
	}
	if prs := s.PRs(full); len(prs) != 1 || prs[0].Body != spec.Body {
		t.Errorf("pull requests on the double: %+v", prs)
	}
	spec.Head = "no-such-branch"
	if _, err := c.OpenPR(ctx, spec); err == nil {
		t.Error("OpenPR() from a branch the double does not have succeeded")
	} else {
		noToken(t, err)
	}

	// What comes back: a red check with its log, a review, a thread, a conflict.
	s.AddCheckRun(full, "agentloop/issue-1", ghdouble.CheckRun{Name: "test", Conclusion: "failure",
		Log: strings.Repeat("ok\n", 3000) + "--- FAIL: TestCache\n"})
	s.AddCheckRun(full, "agentloop/issue-1", ghdouble.CheckRun{Name: "lint", Conclusion: "success", Log: "fine\n"})
	s.AddReview(full, pr.Number, ghdouble.Review{Author: "maint", State: "CHANGES_REQUESTED", Body: "name it better"})
	s.AddThread(full, pr.Number, ghdouble.Thread{Path: "cache.go", Line: 3, Comments: []ghdouble.Comment{{Author: "maint", Body: "why?"}}})
	s.AddThread(full, pr.Number, ghdouble.Thread{Path: "old.go", Line: 1, Resolved: true, Comments: []ghdouble.Comment{{Author: "maint", Body: "ok"}}})
	s.SetConflict(full, pr.Number, true)
	st, err := c.PRStatus(ctx, repo, pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	if !st.PR.Conflict || len(st.Checks) != 2 || !st.Checks[0].Failed() || !strings.HasSuffix(st.Checks[0].LogTail, "--- FAIL: TestCache\n") || len(st.Checks[0].LogTail) > logTailBytes {
		t.Errorf("PRStatus() PR %+v, checks %+v", st.PR, st.Checks)
	}
	if len(st.Reviews) != 1 || !st.Reviews[0].Trusted || st.Reviews[0].State != "CHANGES_REQUESTED" {
		t.Errorf("Reviews = %+v", st.Reviews)
	}
	if len(st.Threads) != 1 || st.Threads[0].Path != "cache.go" || st.Threads[0].Line != 3 || len(st.Threads[0].Comments) != 1 || !st.Threads[0].Comments[0].Trusted {
		t.Errorf("Threads = %+v", st.Threads)
	}
	s.MergePR(full, pr.Number)
	if st, err := c.PRStatus(ctx, repo, pr.Number); err != nil || st.PR.State != forge.PRMerged {
		t.Errorf("PRStatus() after the merge = %+v, %v", st.PR, err)
	}
	if strings.Contains(logs.String(), token) {
		t.Errorf("the log holds the token")
	}
}

// TestDoubleRateLimit: the double's primary rate limit (403, none
// remaining, the window's reset) is waited out to a second past the reset
// on the clock the double shares, and the request then goes through; a
// scope the token lacks is ErrScope naming it.
func TestDoubleRateLimit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	var slept []time.Duration
	s := ghdouble.Start(t, ghdouble.Options{TLS: true, Now: clock, Limit: 3, Window: time.Hour})
	s.AddToken(token, ghdouble.Token{Login: "agent", Scopes: []string{"repo"}})
	s.AddToken("ghp_readonly", ghdouble.Token{Login: "agent", Scopes: []string{"read:org"}})
	s.AddRepo("acme/tool", ghdouble.Repo{})
	s.SetPermission("acme/tool", "agent", "write")
	n := s.AddIssue("acme/tool", ghdouble.Issue{Title: "t", Author: "agent"})
	opts := Options{Host: s.Host(), Token: token, Transport: s.Client().Transport, Now: clock,
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			slept, now = append(slept, d), now.Add(d)
			mu.Unlock()
			return ctx.Err()
		}}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ref := forge.IssueRef{Repo: forge.Repo{Host: s.Host(), Owner: "acme", Name: "tool"}, Number: n}
	s.SpendRateLimit("agent", "core", 3)
	if _, err := c.Issue(t.Context(), ref); err != nil {
		t.Fatalf("Issue() past the limit = %v, want it waited out", err)
	}
	if len(slept) != 1 || slept[0] != time.Hour+time.Second {
		t.Errorf("waits %v, want the window's hour and a second", slept)
	}

	opts.Token = "ghp_readonly"
	c, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Label(t.Context(), ref, []string{"agentloop:running"}, nil)
	if !errors.Is(err, forge.ErrScope) || !strings.Contains(err.Error(), "repo") {
		t.Errorf("Label() with a read:org token = %v, want ErrScope naming repo", err)
	}
	noToken(t, err)
	t.Log(err)
}

// TestIssueReadsBlockersOnlyWhenBlocked: an issue that says it is blocked
// by none (issue_dependencies_summary) is one request, not two; one blocked
// by another is read with its blockers, and a list gives the count of its
// open blockers.
func TestIssueReadsBlockersOnlyWhenBlocked(t *testing.T) {
	t.Parallel()
	s := ghdouble.Start(t, ghdouble.Options{TLS: true})
	s.AddToken(token, ghdouble.Token{Login: "agent", Scopes: []string{"repo"}})
	const full = "acme/tool"
	s.AddRepo(full, ghdouble.Repo{})
	s.SetPermission(full, "agent", "write")
	s.SetPermission(full, "maint", "maintain")
	free := s.AddIssue(full, ghdouble.Issue{Title: "free", Author: "maint", Labels: []string{"agentloop"}})
	blocked := s.AddIssue(full, ghdouble.Issue{Title: "blocked", Author: "maint", Labels: []string{"agentloop"}, BlockedBy: []int{free}})
	c, err := New(Options{Host: s.Host(), Token: token, Transport: s.Client().Transport})
	if err != nil {
		t.Fatal(err)
	}
	repo := forge.Repo{Host: s.Host(), Owner: "acme", Name: "tool"}
	const deps = "GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by"
	got, err := c.Issue(t.Context(), forge.IssueRef{Repo: repo, Number: free})
	if err != nil || got.BlockedBy != nil || got.OpenBlockers != 0 {
		t.Fatalf("Issue(%d) = %+v, %v; want blocked by none", free, got, err)
	}
	if n := s.Count(deps); n != 0 {
		t.Errorf("an issue blocked by none: %d requests for its blockers, want none", n)
	}
	got, err = c.Issue(t.Context(), forge.IssueRef{Repo: repo, Number: blocked})
	if err != nil || !cmp.Equal(got.BlockedBy, []forge.IssueRef{{Repo: repo, Number: free}}) || got.OpenBlockers != 1 {
		t.Fatalf("Issue(%d) = %+v, %v; want blocked by #%d", blocked, got, err, free)
	}
	if n := s.Count(deps); n != 1 {
		t.Errorf("an issue blocked by one: %d requests for its blockers, want 1", n)
	}
	list, _, err := c.Issues(t.Context(), forge.Query{Repo: repo, Labels: []string{"agentloop"}})
	open := map[int]int{}
	for _, is := range list {
		open[is.Ref.Number] = is.OpenBlockers
	}
	if err != nil || !cmp.Equal(open, map[int]int{free: 0, blocked: 1}) {
		t.Errorf("the list's open blockers %v, %v; want #%d blocked by 1", open, err, blocked)
	}
}
