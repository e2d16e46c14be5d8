package gitx

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// HTTPAuth is a credential git sends to the https URLs under URL when it
// pushes or fetches: HTTP Basic authentication with User and Password (a
// forge's token: GitHub takes "x-access-token" and the token). It reaches
// git through git's environment only (GIT_CONFIG_COUNT, as
// http.<URL>.extraHeader): never the command line, where ps shows it, nor a
// configuration file.
type HTTPAuth struct {
	// URL is the https origin, with a path to narrow it
	// ("https://github.com/"); git sends the credential to no other URL, so
	// an ssh remote, or another host's, keeps git's own credentials.
	URL            string
	User, Password string
	// Name says what the credential is, without its secret ("GH_TOKEN"),
	// and Needs what it must be allowed: a push or fetch the remote
	// refuses it says both ("": the error alone).
	Name, Needs string
}

// Covers reports whether git sends a's credential to the remote URL remote:
// an https URL on a's host and port, under a's path.
func (a HTTPAuth) Covers(remote string) bool {
	base, err := url.Parse(a.URL)
	if err != nil || base.Scheme != "https" {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(remote))
	if err != nil || u.Scheme != "https" || !strings.EqualFold(u.Host, base.Host) {
		return false
	}
	return strings.HasPrefix(strings.TrimSuffix(u.Path, "/")+"/", strings.TrimSuffix(base.Path, "/")+"/")
}

// authKey holds a context's HTTPAuth source ([WithHTTPAuth]).
type authKey struct{}

// WithHTTPAuth is ctx whose pushes, fetches and ls-remotes of this package
// send the credential auth gives to the https URLs it covers. auth is asked
// at each of them, so that a token renewed meanwhile (a GitHub App's
// installation token lives an hour) is the one sent; an error of auth fails
// the push or fetch. ok false sends nothing: git's own credentials.
func WithHTTPAuth(ctx context.Context, auth func(context.Context) (a HTTPAuth, ok bool, err error)) context.Context {
	return context.WithValue(ctx, authKey{}, auth)
}

// ErrDenied reports that the remote refused a push or fetch its credential:
// none was given, or the one given may not do it (HTTP 401 or 403, or
// ssh's "Permission denied").
var ErrDenied = errors.New("the remote refused the credential")

// remoteEnv is the environment git talks to remotes with from dir: ssh
// that fails instead of prompting ([sshBatchEnv]), and the credential
// ctx carries ([WithHTTPAuth]), which it also returns (zero: none).
func remoteEnv(ctx context.Context, dir string) ([]string, HTTPAuth, error) {
	env := sshBatchEnv(ctx, dir)
	src, _ := ctx.Value(authKey{}).(func(context.Context) (HTTPAuth, bool, error))
	if src == nil {
		return env, HTTPAuth{}, nil
	}
	a, ok, err := src(ctx)
	if err != nil {
		return nil, HTTPAuth{}, fmt.Errorf("the credential for git over https: %w", err)
	}
	if !ok || a.Password == "" {
		return env, HTTPAuth{}, nil
	}
	return append(env, a.env(os.Getenv("GIT_CONFIG_COUNT"))...), a, nil
}

// env is the git environment that sends a's credential, after the count
// configuration entries the environment sets already (GIT_CONFIG_COUNT).
// An empty extraHeader first drops the headers configured for a's URL
// before (actions/checkout leaves one holding its own token), so that one
// Authorization header is sent. No hook runs where the credential is in
// the environment (core.hooksPath at the null device: a pre-push or
// reference-transaction hook an agent wrote in the clone would read it),
// as none runs for agentloop's own commits (--no-verify).
func (a HTTPAuth) env(count string) []string {
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		n = 0
	}
	key := "http." + a.URL + ".extraHeader"
	basic := base64.StdEncoding.EncodeToString([]byte(a.User + ":" + a.Password))
	return []string{
		"GIT_CONFIG_KEY_" + strconv.Itoa(n) + "=" + key, "GIT_CONFIG_VALUE_" + strconv.Itoa(n) + "=",
		"GIT_CONFIG_KEY_" + strconv.Itoa(n+1) + "=" + key, "GIT_CONFIG_VALUE_" + strconv.Itoa(n+1) + "=Authorization: Basic " + basic,
		"GIT_CONFIG_KEY_" + strconv.Itoa(n+2) + "=core.hooksPath", "GIT_CONFIG_VALUE_" + strconv.Itoa(n+2) + "=" + os.DevNull,
		"GIT_CONFIG_COUNT=" + strconv.Itoa(n+3),
	}
}

// denied marks err, a push's or fetch's failure, with [ErrDenied] when git
// says the remote refused its credential.
func denied(err error) error {
	ge, ok := errors.AsType[*Error](err)
	if !ok {
		return err
	}
	low := strings.ToLower(ge.Stderr)
	for _, s := range []string{"returned error: 403", "returned error: 401", "authentication failed", "could not read username", "could not read password", "permission to ", "permission denied (publickey"} {
		if strings.Contains(low, s) {
			return fmt.Errorf("%w: %w", ErrDenied, err)
		}
	}
	return err
}

// remote runs c, a command that talks to a remote, in [remoteEnv]; a
// credential the remote refused is [ErrDenied], which names the credential
// given and what it needs when git sent it there ([HTTPAuth.Name]).
func (c cmd) remote(ctx context.Context) (string, error) {
	env, a, err := remoteEnv(ctx, c.dir)
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(c.args, " "), err)
	}
	c.env = append(c.env, env...)
	out, err := c.run(ctx)
	err = denied(err)
	if a.Name != "" && errors.Is(err, ErrDenied) && a.Covers(c.remoteURL(ctx)) {
		err = fmt.Errorf("%s, the credential agentloop gave git, needs %s: %w", a.Name, cmp.Or(a.Needs, "to be allowed this"), err)
	}
	return out, err
}

// remoteURL is the URL of the remote c talks to (its first argument after
// the verb that is no option), as git reaches it: a remote's name read
// from the configuration (its push URL for a push), a URL as it is; ""
// when none can be read.
func (c cmd) remoteURL(ctx context.Context) string {
	if len(c.args) < 2 {
		return ""
	}
	for _, arg := range c.args[1:] {
		if strings.HasPrefix(arg, "-") {
			continue
		}
		if strings.Contains(arg, "://") {
			return arg
		}
		args := []string{"remote", "get-url"}
		if c.args[0] == "push" {
			args = append(args, "--push")
		}
		out, err := git(ctx, c.dir, append(args, "--", arg)...)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(out)
	}
	return ""
}
