// Package github is [forge.Forge] on GitHub: github.com, and GitHub
// Enterprise Server through GH_HOST. It finds its host and token exactly as
// the gh CLI does (github.com/cli/go-gh/v2: GH_TOKEN, GITHUB_TOKEN,
// GH_ENTERPRISE_TOKEN, GITHUB_ENTERPRISE_TOKEN, GH_HOST, gh's stored login),
// sends the token only to that host and never writes or logs it.
//
// Every request goes through one loop ([Client.do]) that waits out a rate
// limit (X-RateLimit-Reset, Retry-After) with backoff until the caller's
// context ends, retries a request that may be repeated when GitHub does not
// answer or answers 5xx, and names every other failure with the forge
// package's errors: what was asked (method and path) and what to do.
package github

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/cli/go-gh/v2/pkg/api"
	"github.com/cli/go-gh/v2/pkg/auth"
)

// Options configure a [Client]. The zero value finds everything as gh does.
type Options struct {
	// Host is the GitHub host ("github.com", or a GitHub Enterprise Server
	// host, with a port if it has one); empty takes GH_HOST, then gh's one
	// logged-in host, then github.com.
	Host string
	// Token authenticates; empty takes it as gh does for Host (GH_TOKEN or
	// GITHUB_TOKEN on github.com, GH_ENTERPRISE_TOKEN or
	// GITHUB_ENTERPRISE_TOKEN elsewhere, then gh's stored login).
	Token string
	// App, when set, authenticates as a GitHub App's installation instead
	// of with Token or gh's ([App]).
	App *App
	// Transport carries the requests (nil: http.DefaultTransport, or gh's
	// http_unix_socket when its configuration names one). Tests give one
	// that trusts their server's certificate.
	Transport http.RoundTripper
	// Now and Sleep are the clock the backoff reads and waits on (nil: the
	// real ones). Sleep returns ctx's error when ctx ends first.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Log receives the waits on a rate limit and the retries (nil: discarded).
	Log *slog.Logger
}

// Client is [forge.Forge] on one GitHub host. It is safe for concurrent use.
type Client struct {
	host string // as given, with its port
	// tokenEnv is the variable that gives this host's token; token is
	// kept only to scrub it from what GitHub says back.
	tokenEnv string
	token    string
	// tokenSrc is where the token came from: a variable's name, gh's
	// login ("oauth_token", "gh"), or tokenGiven.
	tokenSrc string
	// app, when set, gives each request its installation token instead.
	app     *appAuth
	rest    string // REST base URL, ending in /
	graphql string
	http    *http.Client
	now     func() time.Time
	sleep   func(ctx context.Context, d time.Duration) error
	log     *slog.Logger

	mu    sync.Mutex
	stats Stats
	perms map[permKey]forge.Permission
	polls map[string][]page // Issues' last pages per query, for ETags
}

var _ forge.Forge = (*Client)(nil)

type permKey struct {
	repo  string
	login string
}

// Stats counts what a client asked of GitHub.
type Stats struct {
	// Requests are the answers GitHub counts against the rate limit.
	Requests int64
	// Conditional304 are the answers "not modified" to a request with
	// If-None-Match, which GitHub does not count.
	Conditional304 int64
	// RateLimitWaits are the times a rate limit was waited out; Retries the
	// requests sent again after GitHub did not answer or answered 5xx.
	RateLimitWaits int64
	Retries        int64
	// Remaining is the last X-RateLimit-Remaining GitHub sent (-1: none yet).
	Remaining int
}

// New is a client for opts.Host with opts.Token, each found as gh finds it
// when empty. No token is [forge.ErrAuth].
func New(opts Options) (*Client, error) {
	host := opts.Host
	if host == "" {
		host, _ = auth.DefaultHost()
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(host, "https://"), "http://"), "/"))
	env := "GH_TOKEN"
	if auth.IsEnterprise(hostname(host)) {
		env = "GH_ENTERPRISE_TOKEN"
	}
	headers := map[string]string{
		"Accept":               "application/vnd.github+json",
		"X-GitHub-Api-Version": "2022-11-28",
	}
	token, authToken, src := opts.Token, "", tokenGiven
	var app *appAuth
	switch {
	case opts.App != nil:
		if err := opts.App.check(); err != nil {
			return nil, fmt.Errorf("github %s: %w", host, err)
		}
		app, token = newAppAuth(*opts.App), ""
		// do sets each request's Authorization; the empty default stands
		// for none, and the placeholder only keeps go-gh from looking for
		// gh's token (it is never sent).
		headers["Authorization"], authToken = "", "github-app"
	case token == "":
		token, src = auth.TokenForHost(host)
		if token == "" {
			return nil, fmt.Errorf("github %s: no token: set %s or run gh auth login --hostname %s: %w", host, env, hostname(host), forge.ErrAuth)
		}
		authToken = token
	default:
		authToken = token
	}
	hc, err := api.NewHTTPClient(api.ClientOptions{
		// The token goes only to this host (its name without the port,
		// which go-gh compares with the request's).
		Host:      hostname(host),
		AuthToken: authToken,
		// nil: go-gh's own, through gh's http_unix_socket when set.
		Transport:     opts.Transport,
		LogIgnoreEnv:  true, // GH_DEBUG would print headers; we log through Log
		Headers:       headers,
		Timeout:       time.Minute,
		CheckRedirect: followGET,
	})
	if err != nil {
		return nil, fmt.Errorf("github %s: %w", host, err)
	}
	c := &Client{
		host: host, tokenEnv: env, token: token, tokenSrc: src, app: app, http: hc,
		now: opts.Now, sleep: opts.Sleep, log: opts.Log,
		perms: map[permKey]forge.Permission{},
		polls: map[string][]page{},
	}
	c.rest, c.graphql = endpoints(host)
	c.stats.Remaining = -1
	if c.now == nil {
		c.now = time.Now
	}
	if c.sleep == nil {
		c.sleep = sleep
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// Host is the host the client talks to, for the references it is given
// ([forge.ParseIssueRef]'s default repository).
func (c *Client) Host() string { return c.host }

// Stats are the client's counts so far.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// endpoints are the REST base and GraphQL URLs of host, as go-gh (and gh)
// build them: api.github.com for github.com and its tenancies,
// https://HOST/api/v3/ and https://HOST/api/graphql for GitHub Enterprise
// Server.
func endpoints(host string) (rest, graphql string) {
	norm := auth.NormalizeHostname(hostname(host))
	switch {
	case norm == "github.localhost":
		return "http://api.github.localhost/", "http://api.github.localhost/graphql"
	case auth.IsEnterprise(norm):
		return "https://" + host + "/api/v3/", "https://" + host + "/api/graphql"
	}
	return "https://api." + norm + "/", "https://api." + norm + "/graphql"
}

// hostname is host without its port.
// TokenHelp says where a token for host (HOST or HOST:PORT) is looked for,
// as gh looks: GH_TOKEN or GITHUB_TOKEN for github.com, GH_ENTERPRISE_TOKEN
// or GITHUB_ENTERPRISE_TOKEN for another host, or gh's stored login.
func TokenHelp(host string) string {
	env := "GH_TOKEN (or GITHUB_TOKEN)"
	if auth.IsEnterprise(hostname(host)) {
		env = "GH_ENTERPRISE_TOKEN (or GITHUB_ENTERPRISE_TOKEN)"
	}
	return "set " + env + " to a token for " + host + ", or log in with 'gh auth login --hostname " + hostname(host) + "'"
}

func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// followGET follows a GET's redirects (a job's log is a redirect to where
// it is stored) and no other method's: Go would turn a redirected DELETE
// into a GET that deletes nothing.
func followGET(req *http.Request, via []*http.Request) error {
	if req.Method != http.MethodGet || len(via) >= 5 {
		return http.ErrUseLastResponse
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// repoPath is /repos/OWNER/NAME, refusing a repository of another host.
func (c *Client) repoPath(r forge.Repo) (string, error) {
	if r.Host != "" && !strings.EqualFold(r.Host, c.host) && !(r.Host == forge.DefaultHost && c.host == forge.DefaultHost) {
		return "", fmt.Errorf("repository %s is on %s, but this client talks to %s: set GH_HOST=%s", r, r.Host, c.host, r.Host)
	}
	if r.Owner == "" || r.Name == "" {
		return "", errors.New("no repository named: write owner/name")
	}
	return "repos/" + url.PathEscape(r.Owner) + "/" + url.PathEscape(r.Name), nil
}
