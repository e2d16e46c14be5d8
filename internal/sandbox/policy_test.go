package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Build: the homes are hidden, the work tree, the CLI's folders and what the
// person lists are writable, agentloop's state in the tree is read-only, an
// installation under a hidden home stays readable, and the hosts are the
// CLI's, its base URL's and the person's.
func TestBuild(t *testing.T) {
	t.Parallel()
	root := resolve(t.TempDir())
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home, agentHome := mk("home"), mk("agent-home")
	repo, state := mk("repo"), mk("repo", ".agentloop")
	bin := mk("home", ".npm", "lib", "node_modules", "cli", "bin")
	if err := os.WriteFile(filepath.Join(bin, "cli.js"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	binLinks := mk("home", ".npm", "lib", "node_modules", ".bin")
	if err := os.Symlink(filepath.Join(bin, "cli.js"), filepath.Join(binLinks, "thecli")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentHome, ".cli.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	extra := mk("home", ".cache", "go-build")
	in := Input{
		Dir: repo, Tree: []string{repo}, State: state, Home: home,
		Env:     []string{"HOME=" + agentHome, "PATH=" + binLinks + ":/usr/bin", "CLI_BASE_URL=http://127.0.0.1:4321/v1"},
		Program: "thecli",
		Needs:   policy.Needs{Home: []string{".cli/", ".cli.json", ".missing.json"}, Hosts: []string{"api.cli.dev"}, HostEnv: []string{"CLI_BASE_URL"}},
		Config:  policy.Config{Allow: []string{"mirror.example.com:443"}, Write: []string{"~/.cache/go-build"}},
	}
	got, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	want := policy.Policy{
		Dir: repo, Network: policy.NetworkHosts,
		Write:   []string{repo, filepath.Join(agentHome, ".cli"), filepath.Join(agentHome, ".cli.json"), extra},
		Protect: []string{state},
		Hide:    []string{home, agentHome},
		Read:    []string{filepath.Join(home, ".npm", "lib", "node_modules")},
		Hosts:   []policy.Host{{Name: "api.cli.dev"}, {Name: "127.0.0.1", Port: 4321}, {Name: "mirror.example.com", Port: 443}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Build (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(agentHome, ".cli")); !os.IsNotExist(err) {
		t.Errorf("Build without Create made the CLI's folder: %v", err)
	}
	in.Create = true
	if _, err := Build(in); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(agentHome, ".cli")); err != nil || !fi.IsDir() {
		t.Errorf("Build with Create did not make the CLI's folder: %v", err)
	}
	in.Config.Write = []string{"~/.nowhere"}
	if _, err := Build(in); err == nil || !strings.Contains(err.Error(), ".nowhere does not exist") {
		t.Errorf("a configured path that does not exist: %v", err)
	}
}

// The bubblewrap command line: the namespaces, the whole system read-only,
// then every mount parents first, the bridge and its sockets, the folder.
func TestBwrapArgs(t *testing.T) {
	t.Parallel()
	p := policy.Policy{
		Dir: "/home/u/repo", Network: policy.NetworkHosts,
		Write:   []string{"/home/u/repo/.agentloop/worktrees/g/t", "/home/u/repo", "/home/u/.claude"},
		Protect: []string{"/home/u/repo/.agentloop"},
		Hide:    []string{"/home/u"},
		Read:    []string{"/home/u/.npm/lib/node_modules"},
	}
	got := strings.Join(bwrapArgs("/usr/bin/bwrap", p, "/opt/agentloop", "/tmp/agentloop-sandbox-1", []string{insideExe, InsideCommand, "--", "claude", "-p"}, true), "\n")
	golden(t, "bwrap-args.golden", got)
	for _, in := range []string{"--unshare-net", "--tmpfs\n/tmp", "--cap-drop\nALL", "--unshare-user\n--uid\n1000"} {
		if !strings.Contains(got, in) {
			t.Errorf("the command line lacks %q", in)
		}
	}
	on := strings.Join(bwrapArgs("/usr/bin/bwrap", policy.Policy{Network: policy.NetworkOn, Dir: "/r", Write: []string{"/r"}}, "/x", "", []string{"cmd"}, false), "\n")
	if strings.Contains(on, "--unshare-net") || strings.Contains(on, "--uid") {
		t.Error("network on, yet a network namespace of its own; or not root, yet another user")
	}
}

// The sandbox-exec profile of the same policy (it cannot run here: its rules
// are checked as text, its grammar on macOS).
func TestSeatbeltProfile(t *testing.T) {
	t.Parallel()
	p := policy.Policy{
		Dir: "/Users/u/repo", Network: policy.NetworkHosts,
		Write:   []string{"/Users/u/repo", "/Users/u/.claude"},
		Protect: []string{"/Users/u/repo/.agentloop"},
		Hide:    []string{"/Users/u"},
		Read:    []string{"/Users/u/.npm/lib/node_modules"},
		Hosts:   []policy.Host{{Name: "api.anthropic.com"}, {Name: "127.0.0.1", Port: 4321}},
	}
	got := SeatbeltProfile(p, 53123, "/private/tmp/agentloop-sandbox-tmp-1")
	golden(t, "seatbelt.golden", got)
	if strings.Count(got, "(") != strings.Count(got, ")") {
		t.Errorf("unbalanced parentheses in the profile:\n%s", got)
	}
	for _, want := range []string{`(remote ip "localhost:53123")`, `(remote ip "localhost:4321")`, `(deny file-read* file-write*` + "\n" + `  (subpath "/Users/u")`} {
		if !strings.Contains(got, want) {
			t.Errorf("the profile lacks %q", want)
		}
	}
	if strings.LastIndex(got, "(allow file-write*") > strings.Index(got, "; agentloop's state") {
		t.Error("a rule that allows writes comes after the one that protects agentloop's state, and wins over it")
	}
	if q := sbplString(`a"b\c`); q != `"a\"b\\c"` {
		t.Errorf("sbplString = %s", q)
	}
}

func TestProxyEnv(t *testing.T) {
	t.Parallel()
	env := proxyEnv([]string{"A=1", "HTTPS_PROXY=http://corp:3128", "ALL_PROXY=socks5://x"}, "127.0.0.1:3128")
	m := envMap(env)
	if m["A"] != "1" || m["HTTPS_PROXY"] != "http://127.0.0.1:3128" || m["https_proxy"] != "http://127.0.0.1:3128" || m["ALL_PROXY"] != "" || !strings.Contains(m["NO_PROXY"], "127.0.0.1") {
		t.Errorf("proxyEnv = %q", env)
	}
}

func TestInstallRoot(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/h/.npm/lib/node_modules/.bin":            "/h/.npm/lib/node_modules",
		"/h/.npm/lib/node_modules/@a/cli/dist/bin": "/h/.npm/lib/node_modules",
		"/h/.local/bin":                            "/h/.local/bin",
	} {
		if got := installRoot(in); got != want {
			t.Errorf("installRoot(%s) = %s, want %s", in, got, want)
		}
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}
