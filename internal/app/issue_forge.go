package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/forge/github"
	"github.com/agentloop/agentloop/internal/plan"
)

// OpenForge opens the forge holding repo, with the GitHub App app names
// when it names one, else with the credentials gh finds.
type OpenForge func(ctx context.Context, repo forge.Repo, app config.GitHubApp) (forge.Forge, error)

// OpenGitHub opens GitHub, or the GitHub Enterprise at repo's host: as the
// GitHub App app names, when it names one (issues: {app: ...} or
// AGENTLOOP_GITHUB_APP_*: its installation token, minted from its private
// key's file and renewed as it expires), else with the credentials gh finds
// (GH_TOKEN or GITHUB_TOKEN, GH_ENTERPRISE_TOKEN off github.com, gh's own
// login). Neither is written anywhere: [IssueOptions.Forge] of the command
// line.
func OpenGitHub(_ context.Context, repo forge.Repo, app config.GitHubApp) (forge.Forge, error) {
	o := github.Options{Host: repo.Host}
	if app.Set() {
		a, err := githubApp(repo, app)
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		o.App = a
	}
	return github.New(o)
}

// appSettings names where a GitHub App is configured, for what to do.
const appSettings = "issues: {app: {id, installation_id, private_key_file}} in agentloop.yaml, or AGENTLOOP_GITHUB_APP_ID, AGENTLOOP_GITHUB_APP_INSTALLATION_ID, AGENTLOOP_GITHUB_APP_KEY_FILE"

// githubApp is the App app names, its key read from its file.
func githubApp(repo forge.Repo, app config.GitHubApp) (*github.App, error) {
	switch {
	case app.ID == "":
		return nil, fmt.Errorf("the GitHub App has no id: name it (the App's settings page shows its App ID) with %s", appSettings)
	case app.PrivateKeyFile == "":
		return nil, fmt.Errorf("the GitHub App %s has no private key file: name it with %s", app.ID, appSettings)
	}
	key, err := github.ReadAppKey(app.PrivateKeyFile)
	if err != nil {
		return nil, err
	}
	return &github.App{ID: app.ID, Key: key, Installation: app.InstallationID, Repo: repo}, nil
}

// forgeApp is the GitHub App p's configuration names, its key file's path
// made absolute from the work tree (a workspace file's relative path is).
func forgeApp(p *plan.Plan) config.GitHubApp {
	a := p.Issues.App
	if a.PrivateKeyFile != "" && !filepath.IsAbs(a.PrivateKeyFile) {
		a.PrivateKeyFile = filepath.Join(p.WorkDir, a.PrivateKeyFile)
	}
	return a
}
