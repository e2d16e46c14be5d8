package github

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/textcut"
)

// The bounds of the request loop.
const (
	// maxRetries is how often a request that may be repeated is sent again
	// after GitHub did not answer or answered 5xx.
	maxRetries = 3
	// firstBackoff doubles on each retry and each rate-limit wait in a row,
	// up to maxBackoff.
	firstBackoff = time.Second
	maxBackoff   = 5 * time.Minute
	// secondaryWait is the least wait on a secondary rate limit that names
	// no Retry-After: GitHub asks for a minute.
	secondaryWait = time.Minute
)

// request is one call of the REST or GraphQL API.
type request struct {
	method string
	// path is relative to the REST base ("repos/o/r/issues"), or a URL
	// GitHub gave (a next page, the GraphQL endpoint).
	path string
	body any    // sent as JSON when not nil
	etag string // sent as If-None-Match
	// retry says the request may be sent again: GET, PATCH, DELETE and a
	// GraphQL query; never a POST that creates.
	retry bool
	// app authenticates as the GitHub App itself (its JWT), not as its
	// installation: the requests that mint the installation's token.
	app bool
}

func get(path string) request { return request{method: http.MethodGet, path: path, retry: true} }

// do sends r until it has an answer to give: a 2xx or 304 response, whose
// body the caller closes, or an [*Error]. It waits out rate limits and
// retries what may be retried, with backoff, never past ctx.
func (c *Client) do(ctx context.Context, r request) (*http.Response, error) {
	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(r.body); err != nil {
			return nil, fmt.Errorf("%s %s: encode the request: %w", r.method, r.path, err)
		}
	}
	u := r.path
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		u = c.rest + u
	}
	path := u
	if pu, err := url.Parse(u); err == nil {
		path = pu.Path
	}
	fail := func(err error, status int, msg, hint string) *Error {
		return &Error{Method: r.method, Path: path, Status: status, Message: msg, Hint: hint, Err: err}
	}
	retries, limited := 0, 0
	// sent is the installation token sent last; stale one GitHub refused.
	sent, stale, reminted := "", "", false
	for {
		req, err := http.NewRequestWithContext(ctx, r.method, u, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.method, path, err)
		}
		if r.etag != "" {
			req.Header.Set("If-None-Match", r.etag)
		}
		if c.app != nil {
			if sent, err = c.authorize(ctx, req, r, stale); err != nil {
				return nil, err
			}
		}
		resp, err := c.http.Do(req)
		if err != nil {
			if ctx.Err() != nil { // the caller stopped waiting: not GitHub's failure
				return nil, fmt.Errorf("%s %s: %w", r.method, path, context.Cause(ctx))
			}
			if r.retry && retries < maxRetries {
				retries++
				if err := c.backoff(ctx, r.method, path, retries, c.scrub(reason(err))); err != nil {
					return nil, err
				}
				continue
			}
			return nil, fail(forge.ErrUnreachable, 0, c.scrub(reason(err)), "check the network and the host ("+c.host+"; GH_HOST chooses another), then run again")
		}
		c.count(resp)
		if resp.StatusCode < 300 || resp.StatusCode == http.StatusNotModified {
			return resp, nil
		}
		if resp.StatusCode == http.StatusUnauthorized && c.app != nil && !r.app && !reminted {
			// Revoked, or expired early: one fresh token, once.
			reminted, stale = true, sent
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			c.log.Info("github app: the installation token was refused; minting another", "method", r.method, "path", path)
			continue
		}
		msg, kind := message(resp)
		msg = c.scrub(msg)
		if resume, ok := c.rateLimit(resp, kind, limited); ok {
			limited++
			if err := c.waitLimit(ctx, r.method, path, resume); err != nil {
				return nil, err
			}
			continue
		}
		if resp.StatusCode >= 500 && r.retry && retries < maxRetries {
			retries++
			if err := c.backoff(ctx, r.method, path, retries, resp.Status); err != nil {
				return nil, err
			}
			continue
		}
		return nil, c.refusal(fail, resp, msg)
	}
}

// count records an answer in the client's stats.
func (c *Client) count(resp *http.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if resp.StatusCode == http.StatusNotModified {
		c.stats.Conditional304++
	} else {
		c.stats.Requests++
	}
	if n, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); err == nil {
		c.stats.Remaining = n
	}
}

// getJSON GETs path into v.
func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	return c.send(ctx, get(path), v)
}

// send sends r and decodes its answer into v (nil: discarded).
func (c *Client) send(ctx context.Context, r request, v any) error {
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	return decode(resp, r.method, v)
}

func decode(resp *http.Response, method string, v any) error {
	defer resp.Body.Close()
	if v == nil || resp.StatusCode == http.StatusNoContent {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("%s %s: read GitHub's answer: %w", method, resp.Request.URL.Path, err)
	}
	return nil
}

// pages GETs path and each next page its Link header names, giving each
// page's body to each.
func (c *Client) pages(ctx context.Context, path string, each func(resp *http.Response) error) error {
	for path != "" {
		resp, err := c.do(ctx, get(path))
		if err != nil {
			return err
		}
		next, err := c.next(resp)
		if err == nil {
			err = each(resp)
		}
		resp.Body.Close()
		if err != nil {
			return err
		}
		path = next
	}
	return nil
}

// next is the URL of the page after resp's, "" on the last. A next page on
// another host than the API's is refused: the token is not sent there.
func (c *Client) next(resp *http.Response) (string, error) {
	n := parseLink(resp.Header.Get("Link"))["next"]
	if n == "" {
		return "", nil
	}
	u, err := resp.Request.URL.Parse(n)
	base, _ := url.Parse(c.rest)
	if err != nil || u.Scheme != base.Scheme || u.Host != base.Host {
		return "", fmt.Errorf("GET %s: the next page is not on %s; GitHub's Link header is %q", resp.Request.URL.Path, base.Host, textcut.Bytes(resp.Header.Get("Link"), 200))
	}
	return u.String(), nil
}
