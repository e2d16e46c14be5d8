package gitx

import (
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestHTTPAuth: a branch is pushed and fetched over HTTPS with the token
// the context gives, asked again at each push (a renewed token is the one
// sent), replacing a header the clone's configuration holds for the host
// (actions/checkout's); without it, or with a token the server refuses,
// the push fails as ErrDenied. The token is on no process's command line
// while git runs, in no file of the clone and not in its configuration.
func TestHTTPAuth(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	srv := testenv.StartGitHTTPS(t)
	bare := srv.Bare(t, "acme/tool.git")
	a := newRepo(t, map[string]string{"README.md": "x\n"})
	run(t, a, "config", "http.sslCAInfo", srv.CAFile)
	run(t, a, "config", "http."+srv.URL+"/.extraheader", "Authorization: Basic eC1hY2Nlc3MtdG9rZW46c3RhbGU=") // x-access-token:stale
	run(t, a, "remote", "add", "origin", srv.URL+"/acme/tool.git")
	run(t, a, "branch", "work")

	if err := ShareBranch(ctx, a, "origin", "work"); !errors.Is(err, ErrDenied) {
		t.Fatalf("ShareBranch without a token = %v, want ErrDenied", err)
	}
	tokens := []string{"tok-first-0123456789", "tok-second-0123456789"}
	asked := 0
	authed := WithHTTPAuth(ctx, func(context.Context) (HTTPAuth, bool, error) {
		tok := tokens[min(asked, len(tokens)-1)]
		asked++
		return HTTPAuth{URL: srv.URL + "/", User: "x-access-token", Password: tok}, true, nil
	})
	if err := ShareBranch(authed, a, "origin", "work"); !errors.Is(err, ErrDenied) {
		t.Fatalf("ShareBranch with a token the server refuses = %v, want ErrDenied", err)
	}
	srv.Allow(tokens[1], true)
	if err := ShareBranch(authed, a, "origin", "work"); err != nil {
		t.Fatalf("ShareBranch with the token renewed: %v", err)
	}
	if got, want := run(t, bare, "rev-parse", "refs/heads/work"), run(t, a, "rev-parse", "work"); got != want {
		t.Errorf("the server's work branch is at %s, want %s", got, want)
	}
	write(t, a, map[string]string{"more.txt": "y\n"})
	run(t, a, "add", "-A")
	run(t, a, "commit", "-q", "-m", "more")
	if err := FetchBranch(authed, a, "origin", "work"); err != nil {
		t.Fatalf("FetchBranch: %v", err)
	}
	if err := FetchAll(authed, a, "origin"); err != nil {
		t.Fatalf("FetchAll: %v", err)
	}
	if asked < 4 || srv.Served() == 0 {
		t.Errorf("the token was asked %d times for 4 transfers, the server served %d", asked, srv.Served())
	}
	if ex := srv.Exposed(); len(ex) > 0 {
		t.Errorf("a process's command line holds the token while git ran: %q", ex)
	}
	for _, dir := range []string{a, bare} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, _ := os.ReadFile(p)
			for _, tok := range tokens {
				if strings.Contains(string(b), tok) || strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte("x-access-token:"+tok))) {
					t.Errorf("%s holds the token", p)
				}
			}
			return nil
		})
	}
	bad := WithHTTPAuth(ctx, func(context.Context) (HTTPAuth, bool, error) {
		return HTTPAuth{}, false, errors.New("mint: no")
	})
	if err := ShareBranch(bad, a, "origin", "work"); err == nil || !strings.Contains(err.Error(), "mint: no") {
		t.Errorf("ShareBranch with a failing credential = %v, want its error", err)
	}
}

// TestHTTPAuthRunsNoHook: a hook in the clone (an agent can write one
// where no sandbox keeps .git/hooks read-only) does not run while the
// credential is in git's environment, where it could read it.
func TestHTTPAuthRunsNoHook(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the hook is a shell script")
	}
	srv := testenv.StartGitHTTPS(t)
	srv.Bare(t, "acme/tool.git")
	a := newRepo(t, map[string]string{"README.md": "x\n"})
	run(t, a, "config", "http.sslCAInfo", srv.CAFile)
	run(t, a, "remote", "add", "origin", srv.URL+"/acme/tool.git")
	run(t, a, "branch", "work")
	seen := filepath.Join(t.TempDir(), "seen")
	hook := "#!/bin/sh\nenv | grep GIT_CONFIG_VALUE >> " + seen + "\necho ran >> " + seen + "\n"
	for _, h := range []string{"pre-push", "reference-transaction"} {
		if err := os.WriteFile(filepath.Join(a, ".git", "hooks", h), []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv.Allow("tok-hooked-0123456789", true)
	authed := WithHTTPAuth(t.Context(), func(context.Context) (HTTPAuth, bool, error) {
		return HTTPAuth{URL: srv.URL + "/", User: "x-access-token", Password: "tok-hooked-0123456789"}, true, nil
	})
	if err := ShareBranch(authed, a, "origin", "work"); err != nil {
		t.Fatalf("ShareBranch: %v", err)
	}
	if err := FetchBranch(authed, a, "origin", "work"); err != nil {
		t.Fatalf("FetchBranch: %v", err)
	}
	if b, err := os.ReadFile(seen); err == nil {
		t.Fatalf("a hook of the clone ran with the credential in its environment:\n%s", b)
	}
}

// TestHTTPAuthRefusalNamesIt: a push the remote refuses the credential
// given names it and what it needs (never its secret), when git sent it
// there; one git sent elsewhere (another host's) names nothing.
func TestHTTPAuthRefusalNamesIt(t *testing.T) {
	t.Parallel()
	srv := testenv.StartGitHTTPS(t)
	srv.Bare(t, "acme/tool.git")
	a := newRepo(t, map[string]string{"README.md": "x\n"})
	run(t, a, "config", "http.sslCAInfo", srv.CAFile)
	run(t, a, "remote", "add", "origin", srv.URL+"/acme/tool.git")
	run(t, a, "branch", "work")
	const tok = "tok-refused-0123456789"
	for _, tc := range []struct {
		url, want string
	}{
		{srv.URL + "/", "GH_TOKEN, the credential agentloop gave git, needs contents: write: the remote refused the credential: git push"},
		{"https://elsewhere.example/", "the remote refused the credential: git push"},
	} {
		authed := WithHTTPAuth(t.Context(), func(context.Context) (HTTPAuth, bool, error) {
			return HTTPAuth{URL: tc.url, User: "x-access-token", Password: tok, Name: "GH_TOKEN", Needs: "contents: write"}, true, nil
		})
		err := ShareBranch(authed, a, "origin", "work")
		if !errors.Is(err, ErrDenied) || !strings.HasPrefix(strings.TrimPrefix(err.Error(), "push the branch work to origin: "), tc.want) || strings.Contains(err.Error(), tok) {
			t.Errorf("ShareBranch with %s refused = %v, want ErrDenied saying %q", tc.url, err, tc.want)
		}
	}
}

func TestHTTPAuthCovers(t *testing.T) {
	t.Parallel()
	a := HTTPAuth{URL: "https://ghe.example:8443/", User: "x-access-token", Password: "t"}
	for _, tc := range []struct {
		remote string
		want   bool
	}{
		{"https://ghe.example:8443/acme/tool.git", true},
		{"https://GHE.example:8443/acme/tool", true},
		{"https://ghe.example/acme/tool.git", false},
		{"http://ghe.example:8443/acme/tool.git", false},
		{"git@ghe.example:acme/tool.git", false},
		{"ssh://git@ghe.example:8443/acme/tool.git", false},
		{"/srv/tool.git", false},
	} {
		if got := a.Covers(tc.remote); got != tc.want {
			t.Errorf("Covers(%q) = %v, want %v", tc.remote, got, tc.want)
		}
	}
}

func TestHTTPAuthEnv(t *testing.T) {
	t.Parallel()
	a := HTTPAuth{URL: "https://h/", User: "u", Password: "p"}
	want := []string{
		"GIT_CONFIG_KEY_2=http.https://h/.extraHeader", "GIT_CONFIG_VALUE_2=",
		"GIT_CONFIG_KEY_3=http.https://h/.extraHeader", "GIT_CONFIG_VALUE_3=Authorization: Basic dTpw",
		"GIT_CONFIG_KEY_4=core.hooksPath", "GIT_CONFIG_VALUE_4=" + os.DevNull,
		"GIT_CONFIG_COUNT=5",
	}
	if diff := cmp.Diff(want, a.env("2")); diff != "" {
		t.Errorf("env after 2 entries (-want +got):\n%s", diff)
	}
	if got := a.env(""); got[0] != "GIT_CONFIG_KEY_0=http.https://h/.extraHeader" || got[6] != "GIT_CONFIG_COUNT=3" {
		t.Errorf("env with none before = %q", got)
	}
}
