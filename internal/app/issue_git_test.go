package app

import (
	"context"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/testenv"
)

// appForge is the fake forge acting as a GitHub App whose installation
// token git is given: a new token at each call, as a long serve renews it.
type appForge struct {
	*fakeForge
	url    string
	mu     sync.Mutex
	minted []string
}

func (f *appForge) GitCredential(context.Context) (forge.GitCredential, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.DescribeGitCredential()
	c.User, c.Password = "x-access-token", "ghs_test"+strings.Repeat("x", 20)+string(rune('a'+len(f.minted)))
	f.minted = append(f.minted, c.Password)
	return c, nil
}

func (f *appForge) DescribeGitCredential() forge.GitCredential {
	return forge.GitCredential{URL: f.url, Held: true, Name: "the GitHub App 42's installation 7",
		Needs: "the App's permissions Contents: Read and write and Pull requests: Read and write"}
}

func (f *appForge) tokens() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.minted...)
}

// TestIssuePushAsTheForgeCredential: the issue's branch is pushed over
// HTTPS with the forge's token (an App's, taken anew at each push), to a
// server that takes nothing else; refused, the error names the App and the
// permissions it needs. The token is on no command line while git runs, in
// no file of the clone (its .git/config included) and of the state folder,
// and not in what agentloop printed.
func TestIssuePushAsTheForgeCredential(t *testing.T) {
	// Not parallel: git reads its CA from GIT_SSL_CAINFO ahead of its
	// configuration, and this machine may set it.
	srv := testenv.StartGitHTTPS(t)
	t.Setenv("GIT_SSL_CAINFO", srv.CAFile)
	bare := srv.Bare(t, "acme/tool.git")
	c := newIssueCase(t, state.StatusSucceeded)
	host := strings.TrimPrefix(srv.URL, "https://")
	ref := forge.IssueRef{Repo: forge.Repo{Host: host, Owner: "acme", Name: "tool"}, Number: 7}
	f := &appForge{fakeForge: newFakeForge(ref), url: srv.URL + "/"}
	f.head = func(branch string) string { return gitIn(t, bare, "rev-parse", "--verify", "-q", "refs/heads/"+branch) }
	c.f = f.fakeForge
	c.opts.Forge = func(context.Context, forge.Repo, config.GitHubApp) (forge.Forge, error) { return f, nil }
	gitIn(t, c.repo, "remote", "set-url", "origin", srv.URL+"/acme/tool.git")

	_, err := c.run(t)
	if err == nil || !strings.Contains(err.Error(), "refused the GitHub App 42's installation 7, the credential agentloop gave git: it needs the App's permissions Contents: Read and write and Pull requests: Read and write") {
		t.Fatalf("RunIssue with a token the remote refuses = %v", err)
	}
	for _, tok := range f.tokens() {
		srv.Allow(tok, false)
	}
	f.mu.Lock()
	next := "ghs_test" + strings.Repeat("x", 20) + string(rune('a'+len(f.minted)))
	f.mu.Unlock()
	srv.Allow(next, true)
	if out, err := c.run(t); err != nil || out.Status != state.StatusSucceeded || len(c.f.prs) != 1 {
		t.Fatalf("RunIssue = %+v, %v, PRs %+v\n%s", out, err, c.f.prs, c.out)
	}
	if got := gitx.BranchCommit(t.Context(), bare, "agentloop/issue/7"); got == "" || got != gitx.BranchCommit(t.Context(), c.repo, "agentloop/issue/7") {
		t.Errorf("the server has the branch at %q", got)
	}
	if ex := srv.Exposed(); len(ex) > 0 {
		t.Errorf("a command line held the token while git ran: %q", ex)
	}
	toks := f.tokens()
	if len(toks) < 2 {
		t.Fatalf("the token was asked %d times", len(toks))
	}
	for _, tok := range toks {
		basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok))
		if strings.Contains(c.out.String(), tok) || (err != nil && strings.Contains(err.Error(), tok)) {
			t.Errorf("agentloop printed the token %s", tok)
		}
		_ = filepath.WalkDir(c.repo, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if b, _ := os.ReadFile(p); strings.Contains(string(b), tok) || strings.Contains(string(b), basic) {
				t.Errorf("%s holds the token", p)
			}
			return nil
		})
	}
}
