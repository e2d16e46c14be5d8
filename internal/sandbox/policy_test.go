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

// One policy, two backends: each policy is turned into the bubblewrap
// command line (Linux) and the sandbox-exec profile (macOS, whose grammar is
// checked there; here its rules are checked as text), kept as golden files
// (go test -update rewrites them). In both, what is writable is so, agentloop's
// state and git's hooks and config are read-only after every rule that allows
// writes, and the network is the proxy's alone, none, or the machine's.
func TestBackends(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    policy.Policy
	}{
		{"hosts", policy.Policy{
			Dir: "/home/u/repo", Network: policy.NetworkHosts,
			Write:   []string{"/home/u/repo/.agentloop/worktrees/g/t", "/home/u/repo", "/home/u/.claude"},
			Protect: []string{"/home/u/repo/.agentloop", "/home/u/repo/.git/hooks", "/home/u/repo/.git/config"},
			Hide:    []string{"/home/u"},
			Read:    []string{"/home/u/.npm/lib/node_modules"},
			Hosts:   []policy.Host{{Name: "api.anthropic.com"}, {Name: "127.0.0.1", Port: 4321}},
		}},
		{"off", policy.Policy{
			Dir: "/srv/repo", Network: policy.NetworkOff,
			Write:   []string{"/srv/repo"},
			Protect: []string{"/srv/repo/.git/hooks", "/srv/repo/.git/config"},
		}},
		{"on", policy.Policy{Dir: "/r", Network: policy.NetworkOn, Write: []string{"/r"}}},
	} {
		hosts := tc.p.Network == policy.NetworkHosts
		netDir, port := "", 0
		if hosts {
			netDir, port = "/tmp/agentloop-sandbox-1", 53123
		}
		args := bwrapArgs("/usr/bin/bwrap", tc.p, "/opt/agentloop", netDir, []string{insideExe, InsideCommand, "--", "claude", "-p"}, hosts)
		bw := strings.Join(args, "\n")
		golden(t, tc.name+".bwrap.golden", bw)
		sb := SeatbeltProfile(tc.p, port, "/private/tmp/agentloop-sandbox-tmp-1")
		golden(t, tc.name+".sb.golden", sb)

		if strings.Count(sb, "(") != strings.Count(sb, ")") {
			t.Errorf("%s: unbalanced parentheses in the profile:\n%s", tc.name, sb)
		}
		for _, w := range tc.p.Write {
			if !strings.Contains(bw, "--bind\n"+w+"\n"+w+"\n") || !strings.Contains(sb, "(subpath "+sbplString(w)+")") {
				t.Errorf("%s: %s is not writable in both", tc.name, w)
			}
		}
		if len(tc.p.Protect) > 0 && strings.LastIndex(sb, "(allow file-write*") > strings.Index(sb, "; agentloop's state") {
			t.Errorf("%s: a rule that allows writes comes after the one that protects agentloop's state and git's, and wins over it", tc.name)
		}
		for _, pr := range tc.p.Protect {
			ro := strings.Index(bw, "--ro-bind-try\n"+pr+"\n"+pr+"\n")
			for _, w := range tc.p.Write {
				if within(pr, w) && ro < strings.Index(bw, "--bind\n"+w+"\n"+w+"\n") {
					t.Errorf("%s: %s is not bound read-only after %s, which it is in", tc.name, pr, w)
				}
			}
			if i := strings.Index(sb, "(subpath "+sbplString(pr)+")"); i < strings.Index(sb, "; agentloop's state") {
				t.Errorf("%s: %s is not denied writes in the profile's last rule", tc.name, pr)
			}
		}
		for _, h := range tc.p.Hide {
			if !strings.Contains(bw, "--tmpfs\n"+h+"\n") || !strings.Contains(sb, "(deny file-read* file-write*\n  (subpath "+sbplString(h)+")") {
				t.Errorf("%s: %s is not hidden in both", tc.name, h)
			}
		}
		unshared := strings.Contains(bw, "--unshare-net")
		denied := strings.Contains(sb, "(deny network*)")
		if unshared != (tc.p.Network != policy.NetworkOn) || denied != unshared {
			t.Errorf("%s: network %s, yet a network of its own %v (bubblewrap), denied %v (sandbox-exec)", tc.name, tc.p.Network, unshared, denied)
		}
		if proxied := strings.Contains(sb, `(remote ip "localhost:53123")`); proxied != hosts || hosts && !strings.Contains(sb, `(remote ip "localhost:4321")`) {
			t.Errorf("%s: the proxy's port reachable: %v, want %v (and the allowed local port)", tc.name, proxied, hosts)
		}
		if asRoot := strings.Contains(bw, "--unshare-user\n--uid\n1000"); asRoot != hosts {
			t.Errorf("%s: another user inside: %v, want %v", tc.name, asRoot, hosts)
		}
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

// What makes git run a command outside the sandbox is read-only inside: the
// hooks and config of the work tree's git folder, and, for a linked worktree,
// of its own git folder and the one it shares (config.worktree where there is
// one). A missing hooks folder is made when the sandbox is (bubblewrap binds
// only what exists). A folder that is not git's protects nothing.
func TestBuildProtectsGit(t *testing.T) {
	t.Parallel()
	root := resolve(t.TempDir())
	gitDir := func(dir string, files ...string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range append([]string{"HEAD"}, files...) {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	repo := filepath.Join(root, "repo")
	main := gitDir(filepath.Join(repo, ".git"), "config")
	linked := gitDir(filepath.Join(main, "worktrees", "wt"), "config.worktree")
	wt := filepath.Join(root, "wt")
	plain := filepath.Join(root, "plain")
	for _, d := range []string{wt, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		tree   []string
		create bool
		want   []string
	}{
		{"a repository", []string{repo}, false, []string{filepath.Join(main, "hooks"), filepath.Join(main, "config")}},
		{"a linked worktree", []string{wt, linked, main}, true, []string{filepath.Join(linked, "hooks"), filepath.Join(linked, "config.worktree"), filepath.Join(main, "hooks"), filepath.Join(main, "config")}},
		{"not git's", []string{plain}, true, nil},
	} {
		p, err := Build(Input{Dir: tc.tree[0], Tree: tc.tree, Create: tc.create})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, p.Protect); diff != "" {
			t.Errorf("%s: protected (-want +got):\n%s", tc.name, diff)
		}
	}
	if fi, err := os.Stat(filepath.Join(linked, "hooks")); err != nil || !fi.IsDir() {
		t.Errorf("the sandbox made no hooks folder to protect: %v", err)
	}
}

// A sandbox-runtime settings file in the configuration: its allowed domains
// and writable paths (~ is $HOME, a relative one is in the work tree) are the
// sandbox's too, a path it denies writes to in the work tree is read-only,
// one it denies reads of must be hidden already; what cannot be honoured is
// an error that names the file.
func TestBuildRuntimeSettings(t *testing.T) {
	t.Parallel()
	root := resolve(t.TempDir())
	home, repo := filepath.Join(root, "home"), filepath.Join(root, "repo")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".cache", "tool"), filepath.Join(repo, "build")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings := func(json string) string {
		f := filepath.Join(t.TempDir(), "srt-settings.json")
		if err := os.WriteFile(f, []byte(json), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	build := func(json string) (policy.Policy, error) {
		return Build(Input{Dir: repo, Tree: []string{repo}, Home: home, Env: []string{"HOME=" + home},
			Config: policy.Config{Settings: settings(json)}})
	}
	p, err := build(`{"network":{"allowedDomains":["github.com","*.npmjs.org"],"deniedDomains":["evil.com"]},
		"filesystem":{"allowWrite":["~/.cache/tool","build"],"denyWrite":[".env"],"denyRead":["~/.ssh"]}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := policy.Policy{
		Dir: repo, Network: policy.NetworkHosts,
		Write:   []string{repo, filepath.Join(home, ".cache", "tool"), filepath.Join(repo, "build")},
		Protect: []string{filepath.Join(repo, ".env")},
		Hide:    []string{home},
		Hosts:   []policy.Host{{Name: "github.com"}, {Name: "npmjs.org", Wildcard: true}},
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Build (-want +got):\n%s", diff)
	}
	for json, msg := range map[string]string{
		`{"filesystem":{"denyRead":["."]}}`:                                      "denyRead " + repo + ": the sandbox lets the command read it",
		`{"filesystem":{"denyRead":["/etc"]}}`:                                   "denyRead /etc: the sandbox lets the command read it",
		`{"filesystem":{"denyWrite":["/"]}}`:                                     "denyWrite / holds " + repo,
		`{"filesystem":{"allowWrite":["~/.nowhere"]}}`:                           ".nowhere does not exist",
		`{"network":{"allowedDomains":["*.a.dev"],"deniedDomains":["b.a.dev"]}}`: "is let through",
	} {
		if _, err := build(json); err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "srt-settings.json") && !strings.Contains(msg, "does not exist") {
			t.Errorf("%s: error %v, want one with %q naming the file", json, err, msg)
		}
	}
}
