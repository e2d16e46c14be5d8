package ghdouble

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitOverHTTP: the double serves git's smart HTTP on a repository's
// Remote as GitHub does: a push with a token of a login that may write
// lands, one without a token is 401, one of a reader or of a token without
// Contents: write 403 naming the login; a fetch of a public repository needs no token.
func TestGitOverHTTP(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	s := Start(t, Options{TLS: true})
	dir := t.TempDir()
	remote, work := filepath.Join(dir, "remote.git"), filepath.Join(dir, "work")
	s.AddRepo("acme/tool", Repo{Remote: remote})
	s.AddToken("tok-writer", Token{Login: "writer"})
	s.AddToken("tok-reader", Token{Login: "reader"})
	s.AddToken("tok-app-read", Token{Login: "writer", ReadOnly: true})
	s.SetPermission("acme/tool", "writer", "write")
	s.SetPermission("acme/tool", "reader", "read")
	run := func(token string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b",
			"GIT_SSL_CAINFO="+s.CAFile(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if token != "" {
			basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
			cmd.Env = append(cmd.Env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=Authorization: Basic "+basic)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, args := range [][]string{{"init", "-q", "--bare", "-b", "main", remote}, {"init", "-q", "-b", "main", work}, {"-C", work, "commit", "-q", "--allow-empty", "-m", "base"}} {
		if out, err := run("", args...); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	url := s.URL() + "/acme/tool.git"
	if out, err := run("", "-C", work, "push", "-q", url, "main"); err == nil || !strings.Contains(out, "401") && !strings.Contains(out, "could not read Username") {
		t.Errorf("a push without a token: %v: %s", err, out)
	}
	if out, err := run("tok-reader", "-C", work, "push", "-q", url, "main"); err == nil || !strings.Contains(out, "Permission to acme/tool.git denied to reader.") || !strings.Contains(out, "403") {
		t.Errorf("a reader's push: %v: %s", err, out)
	}
	if out, err := run("tok-app-read", "-C", work, "push", "-q", url, "main"); err == nil || !strings.Contains(out, "Permission to acme/tool.git denied to writer.") {
		t.Errorf("a push with a token without Contents: write: %v: %s", err, out)
	}
	if out, err := run("tok-writer", "-C", work, "push", "-q", url, "main"); err != nil {
		t.Fatalf("a writer's push: %v: %s", err, out)
	}
	if out, err := run("", "-C", work, "fetch", "-q", strings.TrimSuffix(url, ".git"), "main"); err != nil {
		t.Errorf("a fetch of a public repository without a token: %v: %s", err, out)
	}
	head, _ := exec.Command(git, "-C", remote, "rev-parse", "main").Output()
	want, _ := exec.Command(git, "-C", work, "rev-parse", "main").Output()
	if len(head) == 0 || string(head) != string(want) {
		t.Errorf("the remote's main is %q, want %q", head, want)
	}
	pushes := 0
	for _, r := range s.Requests() {
		if r.Endpoint == "GIT git-receive-pack" && r.Status == 200 && r.Login == "writer" {
			pushes++
		}
	}
	if pushes == 0 {
		t.Errorf("no push by writer logged: %+v", s.Requests())
	}
}
