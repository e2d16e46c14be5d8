package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/testenv"
)

// heldForge is a forge whose client holds (or not) a credential for the
// https URLs under url.
type heldForge struct {
	*fakeForge
	url  string
	held bool
}

func (f heldForge) GitCredential(context.Context) (forge.GitCredential, error) {
	c := f.DescribeGitCredential()
	c.User, c.Password = "x-access-token", "tok"
	return c, nil
}

func (f heldForge) DescribeGitCredential() forge.GitCredential {
	return forge.GitCredential{URL: f.url, Held: f.held, Name: "GH_TOKEN", Needs: "contents: write"}
}

// TestWorkerGitAuth: a worker's git is given the forge's credential for
// an https remote of the forge's host only, and says which by name; an ssh
// remote, a credential not held, another host's and a forge that cannot be
// opened leave git its own, said with why; an App that cannot be used is
// an error; no remote, nothing.
func TestWorkerGitAuth(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "git")
	ref := forge.IssueRef{Repo: forge.Repo{Host: "github.com", Owner: "acme", Name: "tool"}, Number: 1}
	app := config.GitHubApp{ID: "42", PrivateKeyFile: "app.pem"}
	for _, tc := range []struct {
		name, url string
		app       config.GitHubApp
		f         forge.Forge
		err       error
		authed    bool
		said      string
	}{
		{name: "token", url: "https://github.com/acme/tool.git", f: heldForge{newFakeForge(ref), "https://github.com/", true}, authed: true,
			said: "git pushes to and fetches from the remote origin (https://github.com/acme/tool.git) with GH_TOKEN (for the https remotes under https://github.com/), given to git through its environment only; it needs contents: write"},
		{name: "ssh", url: "git@github.com:acme/tool.git", f: heldForge{newFakeForge(ref), "https://github.com/", true},
			said: "git pushes to and fetches from the remote origin (git@github.com:acme/tool.git) with its own credentials: agentloop gives git a forge's credential for https remotes only"},
		{name: "not held", url: "https://github.com/acme/tool.git", f: heldForge{newFakeForge(ref), "https://github.com/", false},
			said: "with its own credentials: agentloop gives git no GH_TOKEN"},
		{name: "another host", url: "https://github.com/acme/tool.git", f: heldForge{newFakeForge(ref), "https://ghe.example/", true},
			said: "with its own credentials: agentloop gives git GH_TOKEN only for the https remotes under https://ghe.example/"},
		{name: "no token", url: "https://github.com/acme/tool.git", err: forge.ErrAuth,
			said: "with its own credentials: not authenticated"},
		{name: "app", url: "https://github.com/acme/tool.git", app: app, err: errors.New("the key file app.pem: no such file")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			gitIn(t, dir, "init", "-q")
			gitIn(t, dir, "remote", "add", "origin", tc.url)
			var gotApp config.GitHubApp
			open := func(_ context.Context, _ forge.Repo, a config.GitHubApp) (forge.Forge, error) {
				gotApp = a
				return tc.f, tc.err
			}
			ctx, said, err := WorkerGitAuth(t.Context(), dir, "origin", tc.app, open)
			if tc.app.Set() {
				if err == nil || !strings.Contains(err.Error(), "the GitHub App the worker's configuration names") || gotApp.PrivateKeyFile != dir+"/app.pem" {
					t.Fatalf("WorkerGitAuth with an App that cannot be used = %v (key file %q), want its error", err, gotApp.PrivateKeyFile)
				}
				return
			}
			if err != nil || !strings.Contains(said, tc.said) || (ctx != t.Context()) != tc.authed {
				t.Errorf("WorkerGitAuth = %q, %v, credential given %v; want %q, given %v", said, err, ctx != t.Context(), tc.said, tc.authed)
			}
		})
	}
	ctx, said, err := WorkerGitAuth(t.Context(), t.TempDir(), "", config.GitHubApp{}, nil)
	if ctx != t.Context() || said != "" || err != nil {
		t.Errorf("WorkerGitAuth without a remote = %q, %v", said, err)
	}
}
