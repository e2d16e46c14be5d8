package ghdouble

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"
	"time"
)

func (s *Server) getRateLimit(c *call) answer {
	res := obj{}
	for _, name := range []string{"core", "graphql"} {
		b := s.bucketLocked(c.tok.Login+"/"+name, s.opts.Limit)
		res[name] = obj{"limit": b.limit, "used": b.used, "remaining": b.remaining(), "reset": b.reset.Unix()}
	}
	reset := s.now().Add(s.opts.Window).Unix()
	res["search"] = obj{"limit": 30, "used": 0, "remaining": 30, "reset": reset}
	res["integration_manifest"] = obj{"limit": 5000, "used": 0, "remaining": 5000, "reset": reset}
	return answer{status: 200, body: obj{"resources": res, "rate": res["core"]}}
}

// bucket is a primary rate limit's window for one token and resource.
type bucket struct {
	limit, used int
	reset       time.Time
}

// bucketLocked is key's bucket, a fresh one when its window has passed.
func (s *Server) bucketLocked(key string, limit int) *bucket {
	now := s.now()
	b := s.limits[key]
	if b == nil || !now.Before(b.reset) {
		b = &bucket{limit: limit, reset: now.Add(s.opts.Window)}
		s.limits[key] = b
	}
	return b
}

func (b *bucket) remaining() int { return max(b.limit-b.used, 0) }

func (b *bucket) headers(h http.Header, resource string) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(b.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(b.remaining()))
	h.Set("X-RateLimit-Used", strconv.Itoa(b.used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(b.reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", resource)
}

// SpendRateLimit uses n of login's requests of resource (core or graphql)
// in the current window, as other programs sharing the token would.
func (s *Server) SpendRateLimit(login, resource string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bucketLocked(login+"/"+resource, s.opts.Limit)
	b.used = min(b.used+n, b.limit)
}

// Fault is an answer forced on the requests that match it.
type Fault struct {
	// Method matches any when empty. Path is a path (/repos/o/r/issues) or
	// the operation's template (/repos/{owner}/{repo}/issues), without
	// /api/v3; empty matches any.
	Method, Path string
	// Times is how many matching requests get the fault; 1 when 0.
	Times int
	// Status answers with this status and GitHub's error body for it.
	Status int
	// RetryAfter (seconds), with Status 403 or 429, makes the answer a
	// secondary rate limit, with GitHub's message and a Retry-After header.
	RetryAfter int
	// Message replaces the error body's message (the status's text when
	// empty); Header is sent with the answer (X-Accepted-GitHub-Permissions,
	// the permission a 403 says is missing).
	Message string
	Header  http.Header
	// Hang answers nothing until the request's context ends.
	Hang bool
	// Drop closes the connection without an answer.
	Drop bool
}

// Inject forces f on the next matching requests.
func (s *Server) Inject(f Fault) {
	if f.Times == 0 {
		f.Times = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// FailNext answers the next n requests of method and path with status.
func (s *Server) FailNext(method, path string, n, status int) {
	s.Inject(Fault{Method: method, Path: path, Times: n, Status: status})
}

// SecondaryLimit answers the next n requests of method and path with
// GitHub's secondary rate limit: status (403 or 429) and Retry-After.
func (s *Server) SecondaryLimit(method, path string, n, status int, retryAfter time.Duration) {
	s.Inject(Fault{Method: method, Path: path, Times: n, Status: status, RetryAfter: max(int(retryAfter/time.Second), 1)})
}

func (s *Server) takeFaultLocked(method, path, tmpl string) *Fault {
	for i, f := range s.faults {
		if f.Method != "" && !strings.EqualFold(f.Method, method) {
			continue
		}
		if f.Path != "" && f.Path != path && f.Path != tmpl {
			continue
		}
		f.Times--
		if f.Times <= 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		return f
	}
	return nil
}

func (f *Fault) answer() answer {
	h := http.Header{}
	if f.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(f.RetryAfter))
		return answer{status: f.Status, header: h, body: errorBody(
			"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID and timestamp.",
			"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", f.Status)}
	}
	for k, vs := range f.Header {
		h[k] = vs
	}
	msg := cmp.Or(f.Message, http.StatusText(f.Status), "Error")
	if f.Status == 502 || f.Status == 503 || f.Status == 504 {
		// GitHub's edge answers these with a page, not JSON.
		return answer{status: f.Status, header: h}
	}
	return answer{status: f.Status, header: h, body: errorBody(msg, "https://docs.github.com/rest", f.Status)}
}

// acceptedScopes is the X-Accepted-OAuth-Scopes GitHub sends for endpoint:
// none for the token's own user and limits, repo for a repository's.
func acceptedScopes(endpoint string) string {
	if strings.Contains(endpoint, "/repos/") {
		return "repo"
	}
	return ""
}
