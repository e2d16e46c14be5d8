package github

import (
	"context"
	"net"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/cli/go-gh/v2/pkg/auth"
)

var _ forge.GitAuth = (*Client)(nil)

// The permissions a push of a run's branch and its pull request need.
const (
	tokenNeeds = "contents: write on the repository (a fine-grained token's Contents: Read and write, a classic token's repo scope)"
	appNeeds   = "the App's permissions Contents: Read and write and Pull requests: Read and write, accepted on its installation"
)

// GitCredential is the credential git pushes and fetches this host's
// repositories with over HTTPS: the App's installation token (renewed as
// the requests' is), or the token of GH_TOKEN, GITHUB_TOKEN,
// GH_ENTERPRISE_TOKEN or GITHUB_ENTERPRISE_TOKEN (or the one given), sent
// as GitHub takes them (x-access-token and the token). gh's stored login
// is not held: git keeps the credentials it has, which `gh auth setup-git`
// makes gh's.
func (c *Client) GitCredential(ctx context.Context) (forge.GitCredential, error) {
	cred := c.DescribeGitCredential()
	if !cred.Held {
		return cred, nil
	}
	cred.User, cred.Password = "x-access-token", c.token
	if c.app != nil {
		tok, err := c.installationToken(ctx, "")
		if err != nil {
			return cred, err
		}
		cred.Password = tok
	}
	return cred, nil
}

// DescribeGitCredential is what [Client.GitCredential] gives, without
// the token and without minting one.
func (c *Client) DescribeGitCredential() forge.GitCredential {
	cred := forge.GitCredential{URL: c.gitURL(), Name: c.Credential(), Needs: tokenNeeds}
	if c.app != nil {
		cred.Needs = appNeeds
	}
	cred.Held = cred.URL != "" && (c.app != nil || c.tokenSrc == tokenGiven || envSource(c.tokenSrc))
	return cred
}

// gitURL is the https origin of the host's git URLs: github.com's (not its
// API's), a tenancy's, or the GitHub Enterprise Server with its port; ""
// for github.localhost, which is served over http.
func (c *Client) gitURL() string {
	h := auth.NormalizeHostname(hostname(c.host))
	if h == "github.localhost" {
		return ""
	}
	if _, port, err := net.SplitHostPort(c.host); err == nil {
		h = net.JoinHostPort(h, port)
	}
	return "https://" + h + "/"
}

// tokenGiven is the source of a token given in [Options.Token].
const tokenGiven = "given"

// envSource reports whether gh found the token in one of its variables.
func envSource(src string) bool {
	switch src {
	case "GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN":
		return true
	}
	return false
}
