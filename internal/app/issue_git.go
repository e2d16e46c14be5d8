package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/gitx"
)

// gitAuth is ctx whose pushes and fetches of the issue's branch send the
// forge's credential, when its client holds one ([forge.GitAuth]: the
// GitHub App's installation token, GH_TOKEN's), to the https remotes of
// the forge's host: taken from the client at each (an App's token is
// renewed in a long serve) and given to git through its environment only
// ([gitx.WithHTTPAuth]). An ssh remote, another host's, or a forge whose
// credential is gh's stored login keep git's own credentials.
func (r *issueRun) gitAuth(ctx context.Context) context.Context {
	ga, ok := r.f.(forge.GitAuth)
	if !ok {
		return ctx
	}
	// Unnamed: a refusal is said by denied, with what to do.
	return gitx.WithHTTPAuth(ctx, httpAuth(ga, false))
}

// denied says, of a push or fetch the remote refused its credential
// ([gitx.ErrDenied]), which credential git sent and what it needs; "" for
// another failure.
func (r *issueRun) denied(ctx context.Context, err error) string {
	if !errors.Is(err, gitx.ErrDenied) {
		return ""
	}
	url, _ := gitx.RemoteURL(ctx, r.repo, r.remote)
	ga, ok := r.f.(forge.GitAuth)
	if !ok {
		return fmt.Sprintf("the remote %s (%s) refused git's own credentials: make them able to push there", r.remote, url)
	}
	c := ga.DescribeGitCredential()
	switch {
	case c.Held && (gitx.HTTPAuth{URL: c.URL}).Covers(url):
		return fmt.Sprintf("the remote %s refused %s, the credential agentloop gave git: it needs %s", r.remote, c.Name, c.Needs)
	case c.Held:
		return fmt.Sprintf("the remote %s (%s) refused git's own credentials: agentloop gives git %s only for the https remotes under %s (an ssh remote uses your ssh key): make git's credentials able to push there, or make the remote an https URL under %s", r.remote, url, c.Name, c.URL, c.URL)
	}
	return fmt.Sprintf("the remote %s (%s) refused git's own credentials (agentloop does not give git %s; 'gh auth setup-git' makes gh's login git's, or set GH_TOKEN): make them able to push there", r.remote, url, c.Name)
}
