package forge

import "context"

// GitCredential is what git pushes and fetches a forge's repositories with
// over HTTPS, when the forge's client holds its credential.
type GitCredential struct {
	// URL is the https origin of the forge's git URLs
	// ("https://github.com/"): git sends the credential nowhere else.
	URL string
	// Held says the forge's client holds the credential and gives it to
	// git; false leaves git to its own credentials (the ones a person set
	// up for git: gh's stored login among them, which `gh auth setup-git`
	// hands git).
	Held bool
	// User and Password are HTTP Basic's; empty when not Held, or when
	// only described.
	User, Password string
	// Name says what the credential is, without any secret ("GH_TOKEN",
	// "the GitHub App 42's installation 7").
	Name string
	// Needs says what the credential must be allowed for agentloop to
	// push a branch and open its pull request.
	Needs string
}

// GitAuth is a [Forge] whose credential git may push and fetch with.
type GitAuth interface {
	// GitCredential is the credential now (a token renewed since the last
	// call is the new one).
	GitCredential(ctx context.Context) (GitCredential, error)
	// DescribeGitCredential is what GitCredential gives, without its
	// secret and without asking the forge for it.
	DescribeGitCredential() GitCredential
}
