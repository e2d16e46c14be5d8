package github

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/cli/go-gh/v2/pkg/config"
)

// TestGitCredentialApp: git is given the App's installation token, the one
// the requests use, renewed as theirs is, for the host's https URLs; the
// credential is named by the App and says what the App needs.
func TestGitCredentialApp(t *testing.T) {
	t.Parallel()
	d := newAppDouble(t, time.Hour)
	c := d.client(t, App{ID: "42"}, nil)
	cred, err := c.GitCredential(t.Context())
	held := cred.Held
	if err != nil || !held || cred.URL != "https://"+d.s.Host()+"/" || cred.User != "x-access-token" || cred.Password == "" {
		t.Fatalf("GitCredential() = %+v, %v, %v; want the installation token for the host", cred.URL, held, err)
	}
	if cred.Name != "the GitHub App 42's installation on acme/tool" || !strings.Contains(cred.Needs, "Contents: Read and write") || !strings.Contains(cred.Needs, "Pull requests: Read and write") {
		t.Errorf("GitCredential() names %q, needs %q", cred.Name, cred.Needs)
	}
	first := cred.Password
	if _, err := c.Issue(t.Context(), forge.IssueRef{Repo: d.repo, Number: 1}); err != nil || d.s.Minted() != 1 {
		t.Fatalf("Issue() = %v, minted %d; want git's token the requests' own", err, d.s.Minted())
	}
	d.advance(56 * time.Minute)
	cred, err = c.GitCredential(t.Context())
	if err != nil || cred.Password == first || d.s.Minted() != 2 {
		t.Errorf("GitCredential() 56 minutes on = %v, minted %d; want a renewed token", err, d.s.Minted())
	}
}

// TestGitCredentialAsGh: a token of gh's variables (or given) is git's,
// named by its variable, for github.com's git host or the Enterprise's
// with its port; gh's stored login is not: git keeps its own credentials.
func TestGitCredentialAsGh(t *testing.T) {
	dir := ghEnv(t)
	for _, tc := range []struct {
		env, host, want, url string
	}{
		{"GH_TOKEN", "github.com", "GH_TOKEN", "https://github.com/"},
		{"GITHUB_TOKEN", "github.com", "GITHUB_TOKEN", "https://github.com/"},
		{"GH_ENTERPRISE_TOKEN", "ghe.example:8443", "GH_ENTERPRISE_TOKEN", "https://ghe.example:8443/"},
		{"GITHUB_ENTERPRISE_TOKEN", "ghe.example", "GITHUB_ENTERPRISE_TOKEN", "https://ghe.example/"},
	} {
		t.Setenv(tc.env, "tok-"+tc.env)
		c, err := New(Options{Host: tc.host})
		if err != nil {
			t.Fatal(err)
		}
		cred, err := c.GitCredential(t.Context())
		held := cred.Held
		if err != nil || !held || cred.Password != "tok-"+tc.env || cred.URL != tc.url || cred.Name != tc.want || c.Credential() != tc.want || !strings.Contains(cred.Needs, "contents: write") {
			t.Errorf("%s: GitCredential() = %q %q %q, %v, %v", tc.env, cred.URL, cred.Name, cred.Needs, cred.Held, err)
		}
		t.Setenv(tc.env, "")
	}
	c, err := New(Options{Host: "github.com", Token: "given"})
	if cred, _ := c.GitCredential(t.Context()); err != nil || !cred.Held || cred.Password != "given" {
		t.Errorf("a token given: GitCredential() = %v, %v", cred.Held, err)
	}

	hosts := "ghe.example.com:\n    oauth_token: stored-token\n    user: me\n"
	if err := os.WriteFile(filepath.Join(dir, "hosts.yml"), []byte(hosts), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := config.Reload(nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.Remove(filepath.Join(dir, "hosts.yml"))
		_ = config.Reload(nil)
	})
	c, err = New(Options{Host: "ghe.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	cred, err := c.GitCredential(t.Context())
	held := cred.Held
	if err != nil || held || cred.Password != "" || cred.Name != "gh's login for ghe.example.com (gh auth login; GH_ENTERPRISE_TOKEN unset)" {
		t.Errorf("gh's stored login: GitCredential() = %+v, %v, %v; want it named, not held", cred, held, err)
	}
}
