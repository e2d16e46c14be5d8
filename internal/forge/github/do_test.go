package github

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/google/go-cmp/cmp"
)

const issue1 = `{"number":1,"title":"t","body":"b","state":"open","user":{"login":"stranger"},"author_association":"NONE","labels":[{"name":"agentloop"}]}`

// TestRateLimitWaited: a primary rate limit (403, none remaining) is waited
// out until a second past its reset, logged with when it resumes; a
// secondary one for its Retry-After, or a minute when it names none; then
// the request goes on.
func TestRateLimitWaited(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 11, 28, 12, 2, 0, 0, time.UTC) // the fake's clock is at 12:00
	tests := []struct {
		name  string
		limit http.HandlerFunc
		want  []time.Duration
	}{
		{"primary 403", reply(403, `{"message":"API rate limit exceeded for user ID 1."}`,
			"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10)), []time.Duration{121 * time.Second}},
		{"primary 429", reply(429, `{"message":"API rate limit exceeded"}`,
			"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10)), []time.Duration{121 * time.Second}},
		{"secondary Retry-After", reply(403, `{"message":"You have exceeded a secondary rate limit."}`, "Retry-After", "30"), []time.Duration{30 * time.Second}},
		{"secondary 429 Retry-After", reply(429, `{}`, "Retry-After", "7"), []time.Duration{7 * time.Second}},
		{"secondary without Retry-After", reply(403, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}`), []time.Duration{time.Minute}},
		// A reset already past (clock skew) still waits, a little longer each time.
		{"reset past", reply(403, `{}`, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1"), []time.Duration{time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, map[string]http.HandlerFunc{
				"GET /repos/o/r/issues/1": sequence(tt.limit, reply(200, issue1)),
			})
			is, err := f.c.Issue(t.Context(), f.ref(1))
			if err != nil || is.Title != "t" {
				t.Fatalf("Issue() = %+v, %v", is, err)
			}
			if diff := cmp.Diff(tt.want, f.sleeps()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if s := f.c.Stats(); s.RateLimitWaits != 1 {
				t.Errorf("Stats() = %+v, want one rate-limit wait", s)
			}
			if log := f.log.String(); !strings.Contains(log, "github rate limit: waiting") || !strings.Contains(log, "resume_at=") || !strings.Contains(log, "level=INFO") {
				t.Errorf("log:\n%s\nwant the wait at info with when it resumes", log)
			}
		})
	}
}

// TestRateLimitGrowsWait: a limit answered again and again is waited on
// longer each time, never polled in a tight loop.
func TestRateLimitGrowsWait(t *testing.T) {
	t.Parallel()
	limit := reply(403, `{}`, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1")
	f := newFake(t, map[string]http.HandlerFunc{
		"GET /repos/o/r/issues/1": sequence(limit, limit, limit, limit, reply(200, issue1)),
	})
	if _, err := f.c.Issue(t.Context(), f.ref(1)); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}
	if diff := cmp.Diff(want, f.sleeps()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestRateLimitOutlastsContext: a limit that ends after the caller's
// deadline fails at once with ErrRateLimited and the reset time; a wait
// cut short by the context fails the same way.
func TestRateLimitOutlastsContext(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	f := newFake(t, map[string]http.HandlerFunc{
		"GET /repos/o/r/issues/1": reply(403, `{"message":"API rate limit exceeded"}`,
			"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10)),
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := f.c.Issue(ctx, f.ref(1))
	e, ok := errors.AsType[*Error](err)
	if !errors.Is(err, forge.ErrRateLimited) || !ok || !e.ResumeAt.Equal(reset.Add(time.Second)) {
		t.Fatalf("Issue() error = %v, want ErrRateLimited resuming at %v", err, reset.Add(time.Second))
	}
	if len(f.sleeps()) != 0 {
		t.Errorf("waited %v for a limit that outlasts the deadline", f.sleeps())
	}
	if msg := err.Error(); !strings.Contains(msg, "GET /api/v3/repos/o/r/issues/1") || !strings.Contains(msg, reset.Add(time.Second).UTC().Format(time.RFC3339)) {
		t.Errorf("error %q names neither the request nor when the limit ends", msg)
	}

	canceled, cancel2 := context.WithCancel(t.Context())
	cancel2()
	_, err = f.c.Issue(canceled, f.ref(1))
	if !errors.Is(err, forge.ErrRateLimited) && !errors.Is(err, context.Canceled) {
		t.Fatalf("Issue(canceled) error = %v", err)
	}
}

// TestErrorsNamed: each refusal is the forge's error, naming the request
// and what to do, and never the token.
func TestErrorsNamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer http.HandlerFunc
		is     error
		want   []string
	}{
		{"401", reply(401, `{"message":"Bad credentials"}`), forge.ErrAuth,
			[]string{"GET /api/v3/repos/o/r/issues/1", "HTTP 401: Bad credentials", "GH_ENTERPRISE_TOKEN", "gh auth login --hostname 127.0.0.1"}},
		{"403 classic scope", reply(403, `{"message":"Resource not accessible by integration"}`, "X-Accepted-OAuth-Scopes", "repo", "X-OAuth-Scopes", "read:org"), forge.ErrScope,
			[]string{"GET /api/v3/repos/o/r/issues/1", "needs a scope of: repo (it has: read:org)", "gh auth refresh --scopes repo"}},
		{"403 fine-grained", reply(403, `{"message":"Resource not accessible by personal access token"}`, "X-Accepted-GitHub-Permissions", "issues=read"), forge.ErrScope,
			[]string{"fine-grained token or app needs the permission issues=read", "Resource not accessible by personal access token"}},
		{"403 unnamed", reply(403, `{"message":"Must have admin rights"}`), forge.ErrScope, []string{"give the token write access"}},
		{"404", reply(404, `{"message":"Not Found"}`), forge.ErrNotFound, []string{"GET /api/v3/repos/o/r/issues/1: not found (HTTP 404: Not Found)", "token can see"}},
		{"410", reply(410, `{"message":"Issues are disabled for this repo"}`), forge.ErrNotFound, []string{"Issues are disabled"}},
		{"422", reply(422, `{"message":"Validation Failed","errors":[{"resource":"Issue","code":"custom","message":"No commits between main and b"}]}`), forge.ErrRefused,
			[]string{"refused (HTTP 422: Validation Failed: No commits between main and b)"}},
		{"422 codes", reply(422, `{"message":"Validation Failed","errors":[{"resource":"Label","field":"name","code":"invalid"}]}`), forge.ErrRefused,
			[]string{"Validation Failed: Label name invalid"}},
		{"a token echoed", reply(400, `{"message":"bad `+token+`"}`), forge.ErrRefused, []string{"HTTP 400: bad [token]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, map[string]http.HandlerFunc{"GET /repos/o/r/issues/1": tt.answer})
			_, err := f.c.Issue(t.Context(), f.ref(1))
			if !errors.Is(err, tt.is) {
				t.Fatalf("Issue() error = %v, want %v", err, tt.is)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			noToken(t, err)
		})
	}
}

// TestRetried: a GET is sent again on a 5xx or no answer, with backoff, a
// few times; a POST that creates is not.
func TestRetried(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]http.HandlerFunc{
		"GET /repos/o/r/issues/1":           sequence(reply(502, `{}`), reply(503, ``), reply(200, issue1)),
		"GET /repos/o/r/issues/2":           reply(500, `{"message":"Server Error"}`),
		"POST /repos/o/r/issues/1/comments": reply(502, `{}`),
	})
	if _, err := f.c.Issue(t.Context(), f.ref(1)); err != nil {
		t.Fatalf("Issue(1) = %v, want it retried into success", err)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, f.sleeps()); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
	_, err := f.c.Issue(t.Context(), f.ref(2))
	if !errors.Is(err, forge.ErrUnreachable) || !strings.Contains(err.Error(), "HTTP 500: Server Error") {
		t.Errorf("Issue(2) error = %v, want ErrUnreachable after the retries", err)
	}
	before := len(f.requests())
	_, err = f.c.Comment(t.Context(), f.ref(1), "hi")
	if !errors.Is(err, forge.ErrUnreachable) || len(f.requests()) != before+1 {
		t.Errorf("Comment() error = %v after %d requests, want ErrUnreachable after one", err, len(f.requests())-before)
	}
	if s := f.c.Stats(); s.Retries != 5 {
		t.Errorf("Stats().Retries = %d, want 2 + 3", s.Retries)
	}
}

// TestUnreachable: a host that does not answer is ErrUnreachable after
// the retries, naming the request and the host, not the token.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	f.srv.Close()
	_, err := f.c.Issue(t.Context(), f.ref(1))
	if !errors.Is(err, forge.ErrUnreachable) || !strings.Contains(err.Error(), "GET /api/v3/repos/o/r/issues/1") || !strings.Contains(err.Error(), "GH_HOST") {
		t.Errorf("Issue() error = %v", err)
	}
	if len(f.sleeps()) != maxRetries {
		t.Errorf("waited %v, want %d backoffs", f.sleeps(), maxRetries)
	}
	noToken(t, err)
}

// TestOtherHostRefused: a repository of another host is not asked of this
// one.
func TestOtherHostRefused(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil)
	_, err := f.c.Issue(t.Context(), forge.IssueRef{Repo: forge.Repo{Host: "github.com", Owner: "o", Name: "r"}, Number: 1})
	if err == nil || !strings.Contains(err.Error(), "set GH_HOST=github.com") || len(f.requests()) != 0 {
		t.Errorf("Issue(github.com/o/r#1) on %s = %v after %d requests", f.c.Host(), err, len(f.requests()))
	}
}

// TestCanceled: a request the caller stops waiting for is the caller's
// context error, not GitHub's failure, and is not retried.
func TestCanceled(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 1)
	f := newFake(t, map[string]http.HandlerFunc{
		"GET /repos/o/r/issues/1": func(w http.ResponseWriter, r *http.Request) {
			started <- struct{}{}
			<-r.Context().Done()
		},
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err := f.c.Issue(ctx, f.ref(1))
	if !errors.Is(err, context.Canceled) || errors.Is(err, forge.ErrUnreachable) || len(f.sleeps()) != 0 {
		t.Errorf("Issue() = %v after waits %v; want context.Canceled at once", err, f.sleeps())
	}
}
