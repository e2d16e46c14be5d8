package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/textcut"
)

// Error is a request GitHub refused or did not answer. It wraps one of the
// forge package's errors.
type Error struct {
	Method string
	// Path is the URL's path (never its query, never the token).
	Path string
	// Status is GitHub's answer (0: none came).
	Status int
	// Message is GitHub's own message, or the reason no answer came.
	Message string
	// Hint says what to do.
	Hint string
	// ResumeAt is when a rate limit ends, if GitHub said.
	ResumeAt time.Time
	Err      error
	cause    error // a context's error, for errors.Is
	app      bool  // the GitHub App's credentials failed: ErrApp too
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %v", e.Method, e.Path, e.Err)
	switch {
	case e.Status != 0 && e.Message != "":
		fmt.Fprintf(&b, " (HTTP %d: %s)", e.Status, e.Message)
	case e.Status != 0:
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	case e.Message != "":
		fmt.Fprintf(&b, " (%s)", e.Message)
	}
	if e.Hint != "" {
		b.WriteString(": " + e.Hint)
	}
	return b.String()
}

func (e *Error) Unwrap() []error {
	errs := []error{e.Err}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	if e.app {
		errs = append(errs, ErrApp)
	}
	return errs
}

// refusal names a 4xx or 5xx answer that is not a rate limit.
func (c *Client) refusal(fail func(error, int, string, string) *Error, resp *http.Response, msg string) *Error {
	s := resp.StatusCode
	switch {
	case s == http.StatusUnauthorized && c.app != nil:
		e := fail(forge.ErrAuth, s, msg, "GitHub refused a fresh installation token of "+c.app.describe()+": check on GitHub that the installation is not suspended and still has the repository")
		e.app = true
		return e
	case s == http.StatusUnauthorized:
		return fail(forge.ErrAuth, s, msg, "the token was refused: set "+c.tokenEnv+" to a valid token or run gh auth login --hostname "+hostname(c.host))
	case s == http.StatusForbidden:
		return fail(forge.ErrScope, s, msg, scopeHint(resp.Header))
	case s == http.StatusNotFound || s == http.StatusGone:
		return fail(forge.ErrNotFound, s, msg, "check the repository and number, and that the token can see the repository (GitHub answers 404 to a token without access)")
	case s == http.StatusUnprocessableEntity || s == http.StatusConflict || s == http.StatusBadRequest:
		return fail(forge.ErrRefused, s, msg, "GitHub refused it as asked; fix what its message names")
	case s >= 500:
		return fail(forge.ErrUnreachable, s, msg, "GitHub is failing; run again later")
	}
	return fail(forge.ErrRefused, s, msg, "")
}

// scopeHint names the permission a 403 says is missing, when GitHub says.
func scopeHint(h http.Header) string {
	var parts []string
	if need := h.Get("X-Accepted-OAuth-Scopes"); need != "" {
		p := "a classic token needs a scope of: " + need
		if has := h.Get("X-OAuth-Scopes"); has != "" {
			p += " (it has: " + has + ")"
		}
		parts = append(parts, p+"; run gh auth refresh --scopes "+strings.Fields(strings.ReplaceAll(need, ",", " "))[0])
	}
	if need := h.Get("X-Accepted-GitHub-Permissions"); need != "" {
		parts = append(parts, "a fine-grained token or app needs the permission "+need)
	}
	if len(parts) == 0 {
		return "give the token write access to the repository's issues and pull requests (scope repo, or the fine-grained permissions issues, pull_requests and checks)"
	}
	return strings.Join(parts, "; ")
}

// message is GitHub's message in an error answer, with the messages of its
// errors list, on one bounded line; kind is the message lower-cased, to
// tell a secondary rate limit. It reads and closes the body.
func message(resp *http.Response) (msg, kind string) {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e struct {
		Message string            `json:"message"`
		Errors  []json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(b, &e) != nil {
		return "", ""
	}
	parts := []string{e.Message}
	for _, raw := range e.Errors {
		var item struct {
			Message, Code, Field, Resource string
		}
		var s string
		switch {
		case json.Unmarshal(raw, &s) == nil:
			parts = append(parts, s)
		case json.Unmarshal(raw, &item) == nil && item.Message != "":
			parts = append(parts, item.Message)
		case json.Unmarshal(raw, &item) == nil && item.Code != "":
			parts = append(parts, strings.TrimSpace(item.Resource+" "+item.Field+" "+item.Code))
		}
	}
	msg = textcut.Bytes(textcut.Line(strings.Join(parts, ": ")), 300)
	return msg, strings.ToLower(msg)
}

// reason is why no answer came, without the request's URL.
func reason(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return textcut.Bytes(textcut.Line(err.Error()), 300)
}

// scrub takes the token out of what GitHub says back, were it ever to echo
// it.
func (c *Client) scrub(s string) string {
	if c.token != "" {
		s = strings.ReplaceAll(s, c.token, "[token]")
	}
	if c.app != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, t := range c.app.secrets {
			s = strings.ReplaceAll(s, t, "[token]")
		}
	}
	return s
}
