package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/gitx"
)

// WorkerGitAuth is ctx whose pushes and fetches of remote, the git remote
// the workers of a fleet share (worker --checkpoint-remote), send the
// forge's credential when its client holds one, as run --issue's pushes
// do: the GitHub App app names (the worker's configuration: issues: {app:
// ...} or AGENTLOOP_GITHUB_APP_*; its installation token taken at each
// push, so renewed in a worker that runs for days) or GH_TOKEN's and the
// like, given to git through its environment only, and only for the https
// remotes of the forge's host. dir is the worker's clone: its remote's URL
// names the forge's host (GH_HOST's, else github.com's, when dir is no
// clone). said tells which credential the pushes use, never its secret
// (what the worker says as it starts); a refusal names it too
// ([gitx.HTTPAuth.Name]). Without a credential agentloop can give, git
// keeps its own. An App that cannot be used is an error.
func WorkerGitAuth(ctx context.Context, dir, remote string, app config.GitHubApp, open OpenForge) (_ context.Context, said string, err error) {
	if remote == "" || open == nil {
		return ctx, "", nil
	}
	url, _ := gitx.RemoteURL(ctx, dir, remote)
	where, repo := "the remote "+remote, forge.Repo{}
	if url != "" {
		where += " (" + url + ")"
		r, err := forge.RepoOfRemote(url)
		if err != nil || !strings.HasPrefix(strings.ToLower(url), "https://") {
			return ctx, fmt.Sprintf("git pushes to and fetches from %s with its own credentials: agentloop gives git a forge's credential for https remotes only", where), nil
		}
		repo = r
	}
	if app.PrivateKeyFile != "" && !filepath.IsAbs(app.PrivateKeyFile) {
		app.PrivateKeyFile = filepath.Join(dir, app.PrivateKeyFile)
	}
	f, err := open(ctx, repo, app)
	switch {
	case err != nil && app.Set():
		return nil, "", fmt.Errorf("the GitHub App the worker's configuration names, for its pushes to %s: %w", where, err)
	case err != nil:
		return ctx, fmt.Sprintf("git pushes to and fetches from %s with its own credentials: %v", where, err), nil
	}
	ga, ok := f.(forge.GitAuth)
	if !ok {
		return ctx, fmt.Sprintf("git pushes to and fetches from %s with its own credentials", where), nil
	}
	c := ga.DescribeGitCredential()
	switch {
	case !c.Held:
		return ctx, fmt.Sprintf("git pushes to and fetches from %s with its own credentials: agentloop gives git no %s ('gh auth setup-git' makes it git's; or set GH_TOKEN, or configure a GitHub App)", where, c.Name), nil
	case url != "" && !(gitx.HTTPAuth{URL: c.URL}).Covers(url):
		return ctx, fmt.Sprintf("git pushes to and fetches from %s with its own credentials: agentloop gives git %s only for the https remotes under %s", where, c.Name, c.URL), nil
	}
	said = fmt.Sprintf("git pushes to and fetches from %s with %s (for the https remotes under %s), given to git through its environment only; it needs %s", where, c.Name, c.URL, c.Needs)
	return gitx.WithHTTPAuth(ctx, httpAuth(ga, true)), said, nil
}

// httpAuth is the credential source of [gitx.WithHTTPAuth] that takes the
// forge's credential from its client at each push and fetch (an App's
// token is renewed as it expires); named, a refusal names it and what it
// needs ([gitx.HTTPAuth.Name]).
func httpAuth(ga forge.GitAuth, named bool) func(context.Context) (gitx.HTTPAuth, bool, error) {
	return func(ctx context.Context) (gitx.HTTPAuth, bool, error) {
		c, err := ga.GitCredential(ctx)
		if err != nil {
			return gitx.HTTPAuth{}, false, fmt.Errorf("%s: %w", c.Name, err)
		}
		a := gitx.HTTPAuth{URL: c.URL, User: c.User, Password: c.Password}
		if named {
			a.Name, a.Needs = c.Name, c.Needs
		}
		return a, c.Held, nil
	}
}
