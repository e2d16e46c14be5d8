package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestMain lets the test binary play agentloop inside the sandbox (the
// bridge) and a client that fetches a URL.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case InsideCommand:
			os.Exit(Inside(os.Args[2:], os.Stderr))
		case "fetch":
			os.Exit(fetchMain(os.Args[2]))
		}
	}
	os.Exit(m.Run())
}

// fetchMain GETs url through the environment's proxy and prints what it got.
func fetchMain(url string) int {
	c := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	resp, err := c.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d %s\n", resp.StatusCode, strings.TrimSpace(string(b)))
	if resp.StatusCode != 200 {
		return 1
	}
	return 0
}

// lab is a work tree, a home with a private key, and agentloop's state.
type lab struct {
	home, repo, state string
	sb                *Sandbox
}

func newLab(t *testing.T, cfg policy.Config) *lab {
	t.Helper()
	testenv.NeedTool(t, "bwrap")
	if err := Check(t.Context()); err != nil {
		t.Fatalf("bubblewrap cannot make a sandbox here: %v", err)
	}
	// Outside /tmp, which the sandbox replaces whole: the home must be hidden
	// on its own account.
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp(cache, "agentloop-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	l := &lab{home: filepath.Join(root, "home"), repo: filepath.Join(root, "repo")}
	l.state = filepath.Join(l.repo, ".agentloop")
	for _, d := range []string{filepath.Join(l.home, ".ssh"), filepath.Join(l.home, ".tool"), l.state, filepath.Join(l.repo, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(l.home, ".ssh", "id_ed25519"), []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"HEAD", "config"} {
		if err := os.WriteFile(filepath.Join(l.repo, ".git", f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l.sb = &Sandbox{Needs: policy.Needs{Home: []string{".tool/"}}, Config: cfg, Exe: exe, State: l.state, Home: l.home}
	return l
}

// run runs argv in the sandbox, in the work tree, and returns its exit code
// and output.
func (l *lab) run(t *testing.T, ctx context.Context, argv ...string) (int, string) {
	t.Helper()
	var out syncBuffer
	spec := proc.Spec{Argv: argv, Dir: l.repo, Env: append(os.Environ(), "HOME="+l.home, "GORACE="+testenv.GORACE()), Stdout: &out, Stderr: &out, Grace: 5 * time.Second}
	wrapped, about, done, err := l.sb.Wrap(ctx, spec)
	if err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	defer done()
	if !strings.Contains(about, "hidden: "+l.home) {
		t.Errorf("the sandbox's description %q does not say the home is hidden", about)
	}
	res, err := proc.Run(ctx, wrapped)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res.ExitCode, out.String()
}

// The files an agent must not touch: the key in $HOME is not there, writes
// outside the work tree (the system, agentloop's state) and to git's hooks
// and config fail read-only, /tmp is its own; the work tree, the rest of its
// git folder and the CLI's folder are writable.
func TestSandboxFiles(t *testing.T) {
	t.Parallel()
	l := newLab(t, policy.Config{Network: policy.NetworkOff})
	probe := "/etc/agentloop-sandbox-probe-" + strconv.Itoa(os.Getpid())
	tmpProbe := filepath.Join(os.TempDir(), "agentloop-sandbox-probe-"+strconv.Itoa(os.Getpid()))
	t.Cleanup(func() { _ = os.Remove(probe); _ = os.Remove(tmpProbe) })
	script := `cat "$HOME/.ssh/id_ed25519"; echo "key=$?"
echo x > "` + probe + `"; echo "system=$?"
echo x > .agentloop/state.json; echo "state=$?"
echo x > "` + tmpProbe + `"; echo "tmp=$?"
echo x > work.txt; echo "tree=$?"
echo x > .git/hooks/pre-commit; echo "hooks=$?"
echo x >> .git/config; echo "config=$?"
echo x > .git/index; echo "git=$?"
echo x > "$HOME/.tool/config"; echo "tool=$?"`
	code, out := l.run(t, t.Context(), "sh", "-c", script)
	for _, want := range []string{
		"id_ed25519: No such file or directory", "key=1",
		probe + ": Read-only file system", "system=",
		".agentloop/state.json: Read-only file system", "state=",
		".git/hooks/pre-commit: Read-only file system", "hooks=",
		".git/config: Read-only file system", "config=",
		"tmp=0", "tree=0", "git=0", "tool=0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	for _, gone := range []string{probe, tmpProbe, filepath.Join(l.state, "state.json"), filepath.Join(l.repo, ".git", "hooks", "pre-commit")} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("%s was written outside the sandbox", gone)
		}
	}
	for _, kept := range []string{filepath.Join(l.repo, "work.txt"), filepath.Join(l.home, ".tool", "config")} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s, written inside, is not there: %v", kept, err)
		}
	}
}

// The network limited to hosts: an allowed local port is reached as it is, a
// second one is not there, and any other host is refused by the proxy with
// the sandbox's words. Off, nothing is reached; on, everything.
func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	hello := func(name string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "hello from "+name) }))
		t.Cleanup(s.Close)
		return s
	}
	allowed, other := hello("allowed"), hello("other")
	host := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }
	tests := []struct {
		network string
		url     string
		code    int
		out     string
	}{
		{policy.NetworkHosts, allowed.URL, 0, "200 hello from allowed"},
		{policy.NetworkHosts, other.URL, 1, "connection refused"},
		{policy.NetworkHosts, "http://example.invalid/", 1, "403 " + Blocked + " a connection to example.invalid:80: not on the allow-list (" + host(allowed) + ")"},
		{policy.NetworkOff, allowed.URL, 1, "connection refused"},
		{policy.NetworkOn, other.URL, 0, "200 hello from other"},
	}
	for _, tt := range tests {
		t.Run(tt.network+" "+tt.url, func(t *testing.T) {
			t.Parallel()
			l := newLab(t, policy.Config{Network: tt.network, Allow: []string{host(allowed)}})
			code, out := l.run(t, t.Context(), insideExe, "fetch", tt.url)
			if code != tt.code || !strings.Contains(out, tt.out) {
				t.Errorf("exit %d, output %q; want exit %d and %q", code, out, tt.code, tt.out)
			}
		})
	}
}

// SIGTERM to the run's process group (a timeout, Ctrl-C) reaches the command
// inside, which ends as it chooses while the sandbox stays up.
func TestSandboxTerm(t *testing.T) {
	t.Parallel()
	l := newLab(t, policy.Config{Network: policy.NetworkHosts})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out syncBuffer
	ready := make(chan struct{})
	go func() {
		for !strings.Contains(out.String(), "ready") {
			time.Sleep(20 * time.Millisecond)
		}
		close(ready)
	}()
	spec := proc.Spec{Argv: []string{"sh", "-c", `trap 'echo got TERM; exit 3' TERM; echo ready; while :; do sleep 0.1; done`},
		Dir: l.repo, Env: append(os.Environ(), "HOME="+l.home, "GORACE="+testenv.GORACE()), Stdout: &out, Stderr: &out, Grace: 10 * time.Second}
	wrapped, _, done, err := l.sb.Wrap(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	go func() {
		select {
		case <-ready:
			cancel()
		case <-time.After(30 * time.Second):
		}
	}()
	res, err := proc.Run(ctx, wrapped)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || !strings.Contains(out.String(), "got TERM") || res.Duration > 8*time.Second {
		t.Errorf("result %+v, output %q: want the command's own exit 3 after its SIGTERM handler, within the grace period", res, out.String())
	}
}

// syncBuffer is a buffer the output pumps may write to at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// An agent whose command lies right in /tmp (--agent-cmd /tmp/agent.sh)
// works in the sandbox: its file is bound alone, not the whole /tmp, which
// stays private (a file beside it is not seen) and holds agentloop's own
// parts. The sandbox that it gets can be set up ([Sandbox.Try]).
func TestSandboxAgentInTmp(t *testing.T) {
	l := newLab(t, policy.Config{})
	secret, err := os.CreateTemp("/tmp", "agentloop-test-secret-")
	if err != nil {
		t.Fatal(err)
	}
	secret.Close()
	t.Cleanup(func() { _ = os.Remove(secret.Name()) })
	f, err := os.CreateTemp("/tmp", "agentloop-test-agent-*.sh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(f.Name()) })
	script := "#!/bin/sh\nif test -e " + secret.Name() + "; then echo sees the rest of /tmp; exit 3; fi\necho ran > ran.txt\n"
	if _, err := f.WriteString(script); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chmod(f.Name(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := l.sb.Try(t.Context(), l.repo, append(os.Environ(), "HOME="+l.home, "GORACE="+testenv.GORACE()), f.Name()); err != nil {
		t.Errorf("Try: %v", err)
	}
	if code, out := l.run(t, t.Context(), f.Name()); code != 0 {
		t.Fatalf("the agent in /tmp: exit %d:\n%s", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(l.repo, "ran.txt")); err != nil || string(b) != "ran\n" {
		t.Errorf("ran.txt = %q, %v", b, err)
	}
}

// A sandbox that cannot be set up is a [*SetupError] from [Sandbox.Try]
// that names the program, the folder and what the sandbox said.
func TestSandboxTryFails(t *testing.T) {
	l := newLab(t, policy.Config{})
	l.sb.Exe = filepath.Join(l.home, "no-such-agentloop") // the bridge's bind fails
	err := l.sb.Try(t.Context(), l.repo, append(os.Environ(), "HOME="+l.home, "GORACE="+testenv.GORACE()), "sh")
	se, ok := errors.AsType[*SetupError](err)
	if !ok {
		t.Fatalf("Try = %v, want a *SetupError", err)
	}
	if se.Code == 0 || !strings.Contains(se.Output, "no-such-agentloop") {
		t.Errorf("SetupError = %+v", se)
	}
	for _, want := range []string{"sandbox (bubblewrap) cannot be set up for sh in " + l.repo, "no-such-agentloop", "agentloop doctor", "without --sandbox"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
}
