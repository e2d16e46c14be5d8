package github

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
)

// rateLimit says whether resp is a rate limit, and when to send again:
// X-RateLimit-Reset when none remain (the primary limit), Retry-After (a
// secondary limit), or a growing backoff from a minute when GitHub names a
// secondary limit without saying how long. limited is how many waits came
// before in a row: each waits longer, so no limit is ever polled in a tight
// loop.
func (c *Client) rateLimit(resp *http.Response, kind string, limited int) (time.Time, bool) {
	s := resp.StatusCode
	if s != http.StatusForbidden && s != http.StatusTooManyRequests {
		return time.Time{}, false
	}
	now := c.now()
	least := now.Add(grow(firstBackoff, limited))
	later := func(t time.Time) time.Time {
		if t.Before(least) {
			return least
		}
		return t
	}
	h := resp.Header
	if ra := h.Get("Retry-After"); ra != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil && n >= 0 {
			return later(now.Add(time.Duration(n) * time.Second)), true
		}
		if t, err := http.ParseTime(ra); err == nil {
			return later(t), true
		}
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			// A second past the reset, as GitHub advises for clock skew.
			return later(time.Unix(n, 0).Add(time.Second)), true
		}
		return later(now), true
	}
	if s == http.StatusTooManyRequests || strings.Contains(kind, "secondary rate limit") || strings.Contains(kind, "abuse") {
		return later(now.Add(grow(secondaryWait, limited))), true
	}
	return time.Time{}, false
}

// waitLimit waits until resume, or fails with [forge.ErrRateLimited] at
// once when ctx ends before it.
func (c *Client) waitLimit(ctx context.Context, method, path string, resume time.Time) error {
	limited := func(cause error) error {
		return &Error{Method: method, Path: path, Err: forge.ErrRateLimited, ResumeAt: resume, cause: cause,
			Hint: "GitHub's rate limit lasts until " + resume.UTC().Format(time.RFC3339) + "; run again then, or with a token of another account or app"}
	}
	if dl, ok := ctx.Deadline(); ok && dl.Before(resume) {
		return limited(context.DeadlineExceeded)
	}
	d := resume.Sub(c.now())
	c.mu.Lock()
	c.stats.RateLimitWaits++
	c.mu.Unlock()
	c.log.InfoContext(ctx, "github rate limit: waiting", "method", method, "path", path,
		"resume_at", resume.UTC().Format(time.RFC3339), "wait_ms", d.Milliseconds())
	if err := c.sleep(ctx, d); err != nil {
		return limited(err)
	}
	return nil
}

// backoff waits before the retry-th retry of a request that got no answer
// or a 5xx.
func (c *Client) backoff(ctx context.Context, method, path string, retry int, why string) error {
	d := grow(firstBackoff, retry-1)
	c.mu.Lock()
	c.stats.Retries++
	c.mu.Unlock()
	c.log.InfoContext(ctx, "github request retried", "method", method, "path", path, "reason", why, "retry", retry, "wait_ms", d.Milliseconds())
	if err := c.sleep(ctx, d); err != nil {
		return &Error{Method: method, Path: path, Err: forge.ErrUnreachable, Message: why, cause: err,
			Hint: "check the network and the host (" + c.host + "), then run again"}
	}
	return nil
}

// grow is d doubled n times, at most maxBackoff.
func grow(d time.Duration, n int) time.Duration {
	for range n {
		if d *= 2; d >= maxBackoff {
			return maxBackoff
		}
	}
	return min(d, maxBackoff)
}
