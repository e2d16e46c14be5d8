package github

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
)

// App is a GitHub App acting through one of its installations: the client
// signs a JWT with the App's private key, exchanges it for an installation
// token (an hour's) and sends that token with every request, minting the
// next one before it expires and once more when GitHub refuses it. Neither
// the key nor a token is ever logged, written or put in an error.
type App struct {
	// ID is the App's id ("12345") or its client id ("Iv23li..."): the
	// JWT's issuer.
	ID string
	// Key is the App's private key ([ReadAppKey]).
	Key *rsa.PrivateKey
	// Installation is the installation's id; 0 asks GitHub for the
	// installation on Repo (GET /repos/{owner}/{repo}/installation).
	Installation int64
	Repo         forge.Repo
}

// The lifetimes of what the App signs and is given.
const (
	// jwtBackdate and jwtLife bound the JWT: issued a minute in the past
	// (GitHub's advice, for a clock behind GitHub's) and expiring nine
	// minutes ahead, under GitHub's ten with a minute for a clock ahead.
	jwtBackdate = time.Minute
	jwtLife     = 9 * time.Minute
	// tokenMargin is how long before its expiry an installation token is
	// replaced, so a request never leaves with one about to expire (a
	// quarter of its life for a token that lives less than 20 minutes).
	tokenMargin = 5 * time.Minute
)

// ErrApp is a failure of the GitHub App's credentials: its key, its id,
// its installation, or the clock its JWT is signed by. Its message says
// what to fix; no other credential is at fault.
var ErrApp = errors.New("the GitHub App cannot authenticate")

// appAuth keeps the installation token of an App, minting it as needed.
// One mint runs at a time; requests wait for it (or for their context).
type appAuth struct {
	app  App
	inst int64 // the installation, once known
	// found says the repository's installation was looked up; bot is the
	// App's login there (SLUG[bot]), read under the client's mu.
	found bool
	bot   string
	// sem is held while the token is read or minted.
	sem     chan struct{}
	token   string
	expires time.Time
	// margin is how long before expires the token is replaced:
	// tokenMargin, or a quarter of a shorter token's life.
	margin time.Duration
	// secrets are the tokens and JWTs handed out, to scrub from errors.
	secrets []string
}

func newAppAuth(a App) *appAuth {
	return &appAuth{app: a, inst: a.Installation, sem: make(chan struct{}, 1)}
}

// describe names the credential, without any secret in it.
func (a *appAuth) describe() string {
	s := "the GitHub App " + a.app.ID
	if a.app.Installation != 0 {
		s += "'s installation " + strconv.FormatInt(a.app.Installation, 10)
	} else {
		s += "'s installation on " + a.app.Repo.Owner + "/" + a.app.Repo.Name
	}
	return s
}

// installationToken is the token to send now: the one kept, or a new one
// when it expires within tokenMargin or is stale (GitHub refused it).
func (c *Client) installationToken(ctx context.Context, stale string) (string, error) {
	a := c.app
	select {
	case a.sem <- struct{}{}:
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
	defer func() { <-a.sem }()
	if a.token != "" && a.token != stale && c.now().Add(a.margin).Before(a.expires) {
		return a.token, nil
	}
	if !a.found && a.app.Repo.Name != "" {
		// Once: the installation, when not given, and the App's bot, whose
		// comments are agentloop's own.
		id, slug, err := c.findInstallation(ctx)
		if err != nil {
			return "", err
		}
		a.found = true
		if a.inst == 0 {
			a.inst = id
		}
		if slug != "" {
			c.mu.Lock()
			a.bot = slug + "[bot]"
			c.mu.Unlock()
		}
	}
	var out struct {
		Token     string    `json:"token"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	path := "app/installations/" + strconv.FormatInt(a.inst, 10) + "/access_tokens"
	if err := c.send(ctx, request{method: http.MethodPost, path: path, app: true, retry: true}, &out); err != nil {
		return "", c.appFailure(err, path)
	}
	if out.Token == "" {
		return "", fmt.Errorf("POST /%s: GitHub's answer holds no token", path)
	}
	c.keep(out.Token)
	a.token, a.expires = out.Token, out.ExpiresAt
	a.margin = min(tokenMargin, out.ExpiresAt.Sub(c.now())/4)
	c.log.Debug("github app: minted an installation token", "app", a.app.ID, "installation", a.inst, "expires", out.ExpiresAt)
	return a.token, nil
}

// findInstallation asks GitHub for the App's installation on its
// repository: its id and the App's slug (its bot signs SLUG[bot]).
func (c *Client) findInstallation(ctx context.Context) (id int64, slug string, err error) {
	r := c.app.app.Repo
	rp, err := c.repoPath(r)
	if err != nil {
		return 0, "", err
	}
	var out struct {
		ID   int64  `json:"id"`
		Slug string `json:"app_slug"`
	}
	req := get(rp + "/installation")
	req.app = true
	if err := c.send(ctx, req, &out); err != nil {
		return 0, "", c.appFailure(err, rp+"/installation")
	}
	if out.ID == 0 {
		return 0, "", fmt.Errorf("GET /%s/installation: GitHub's answer names no installation", rp)
	}
	return out.ID, out.Slug, nil
}

// bot is the login the App's installation acts as ("" before it is known).
func (c *Client) bot() string {
	if c.app == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.app.bot
}

// appFailure names what a refused App request means and what to do.
func (c *Client) appFailure(err error, path string) error {
	e, ok := errors.AsType[*Error](err)
	if !ok {
		return err
	}
	e.app = true
	id := c.app.app.ID
	low := strings.ToLower(e.Message)
	switch {
	case strings.Contains(low, "'exp'") || strings.Contains(low, "'iat'") || strings.Contains(low, "expiration time") || strings.Contains(low, "issued at"):
		e.Hint = "GitHub refused the App's JWT for its times: this machine's clock is off from GitHub's by more than a minute; set it right (NTP: timedatectl set-ntp true) and run again"
	case e.Status == http.StatusUnauthorized:
		e.Hint = "GitHub refused the JWT of the GitHub App " + id + ": check the App id (or client id) and that the private key is one of this App's (the App's settings page lists its keys' fingerprints)"
	case e.Status == http.StatusNotFound && strings.Contains(low, "integration not found"):
		e.Err, e.Hint = forge.ErrAuth, "no GitHub App has the id "+id+": check the App id (the App's settings page shows it as App ID)"
	case e.Status == http.StatusNotFound && strings.HasSuffix(path, "/installation"):
		e.Err, e.Hint = forge.ErrAuth, "the GitHub App "+id+" is not installed on "+c.app.app.Repo.Owner+"/"+c.app.app.Repo.Name+": install it there (the App's public page, Install), or name its installation id"
	case e.Status == http.StatusNotFound:
		e.Err, e.Hint = forge.ErrAuth, "the GitHub App "+id+" has no installation "+strconv.FormatInt(c.app.inst, 10)+": check the installation id (the number at the end of the installation's settings URL), or leave it out to find the repository's"
	case e.Status == http.StatusForbidden:
		e.Hint = "GitHub refused the GitHub App " + id + " an installation token: check on GitHub that its installation is not suspended and that no IP allow list keeps this machine out"
	}
	return e
}

// check says what an App lacks.
func (a *App) check() error {
	switch {
	case a.ID == "":
		return errors.New("GitHub App: no App id: give the App's id (or client id) from its settings page")
	case a.Key == nil:
		return fmt.Errorf("GitHub App %s: no private key: %w; %s", a.ID, ErrAppKey, keyHint)
	case a.Installation == 0 && (a.Repo.Owner == "" || a.Repo.Name == ""):
		return fmt.Errorf("GitHub App %s: no installation id and no repository to find it on: give the installation id", a.ID)
	}
	return nil
}

// authorize sets req's Authorization: the App's JWT for r.app, else the
// installation's token (a new one when stale is the one kept). It returns
// the installation token it set.
func (c *Client) authorize(ctx context.Context, req *http.Request, r request, stale string) (string, error) {
	if r.app {
		jwt, err := appJWT(c.app.app.ID, c.app.app.Key, c.now())
		if err != nil {
			return "", err
		}
		c.keep(jwt)
		req.Header.Set("Authorization", "Bearer "+jwt)
		return "", nil
	}
	tok, err := c.installationToken(ctx, stale)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "token "+tok)
	return tok, nil
}

// keepSecrets bounds the secrets kept to scrub: the last few tokens and
// JWTs are all that can still be in flight.
const keepSecrets = 8

// keep remembers a secret handed out, to scrub it from what GitHub says.
func (c *Client) keep(secret string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.app
	a.secrets = append(a.secrets, secret)
	if len(a.secrets) > keepSecrets {
		a.secrets = append(a.secrets[:0:0], a.secrets[len(a.secrets)-keepSecrets:]...)
	}
}

// Credential names what the client authenticates with, without any secret:
// the GitHub App, the variable its token came from (GH_TOKEN, ...), or gh's
// login.
func (c *Client) Credential() string {
	if c.app != nil {
		return c.app.describe()
	}
	switch {
	case envSource(c.tokenSrc):
		return c.tokenSrc
	case c.tokenSrc == tokenGiven:
		return "the token given for " + c.host
	}
	return "gh's login for " + hostname(c.host) + " (gh auth login; " + c.tokenEnv + " unset)"
}
