package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestParseHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Host
		err  string
	}{
		{in: "api.anthropic.com", want: Host{Name: "api.anthropic.com"}},
		{in: "API.Example.com.:443", want: Host{Name: "api.example.com", Port: 443}},
		{in: "*.cursor.sh", want: Host{Name: "cursor.sh", Wildcard: true}},
		{in: "127.0.0.1:8080", want: Host{Name: "127.0.0.1", Port: 8080}},
		{in: "[::1]:8080", want: Host{Name: "::1", Port: 8080}},
		{in: "::1", want: Host{Name: "::1"}},
		{in: "https://api.example.com", err: "not a URL"},
		{in: "example.com:99999", err: "port"},
		{in: "example.com:http", err: "port"},
		{in: "", err: "want a host"},
		{in: "a/b", err: "want a host"},
	}
	for _, tt := range tests {
		got, err := ParseHost(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseHost(%q) = %+v, %v; want an error about %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseHost(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestAllowed(t *testing.T) {
	t.Parallel()
	hosts := func(ss ...string) []Host {
		var out []Host
		for _, s := range ss {
			h, err := ParseHost(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, h)
		}
		return out
	}
	p := Policy{Network: NetworkHosts, Hosts: hosts("api.anthropic.com", "*.cursor.sh", "127.0.0.1:4321", "localhost:5000")}
	tests := []struct {
		host string
		port int
		want bool
	}{
		{"api.anthropic.com", 443, true},
		{"API.ANTHROPIC.COM.", 80, true},
		{"evil-api.anthropic.com", 443, false},
		{"anthropic.com", 443, false},
		{"api2.cursor.sh", 443, true},
		{"cursor.sh", 443, false},
		{"127.0.0.1", 4321, true},
		{"localhost", 4321, true},
		{"127.0.0.1", 4322, false},
		{"127.0.0.1", 5000, true},
		{"example.com", 443, false},
	}
	for _, tt := range tests {
		if got := p.Allowed(tt.host, tt.port); got != tt.want {
			t.Errorf("Allowed(%s, %d) = %v, want %v", tt.host, tt.port, got, tt.want)
		}
	}
	if (Policy{Network: NetworkOff, Hosts: p.Hosts}).Allowed("api.anthropic.com", 443) {
		t.Error("network off let a host through")
	}
	if !(Policy{Network: NetworkOn}).Allowed("example.com", 443) {
		t.Error("network on refused a host")
	}
	if got := p.Forwards(); len(got) != 2 || got[0].Port != 4321 || got[1].Port != 5000 {
		t.Errorf("Forwards = %v, want the two local ports", got)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	err := Config{Network: "partly", Allow: []string{"http://x"}, Write: []string{"rel/path"}, Read: []string{"~/ok", "/ok"}}.Validate()
	for _, want := range []string{`network "partly"`, "not a URL", `"rel/path": want an absolute path`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to say %q", err, want)
		}
	}
	if err := (Config{Network: NetworkOff, Allow: []string{"a.b:1"}, Write: []string{"~/x", "/y"}}).Validate(); err != nil {
		t.Errorf("a valid configuration: %v", err)
	}
	merged := Config{Network: NetworkOff, Allow: []string{"a"}}.Merge(Config{Allow: []string{"b"}, Write: []string{"/w"}})
	if diff := cmp.Diff(Config{Network: NetworkOff, Allow: []string{"a", "b"}, Write: []string{"/w"}}, merged); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
}

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
		Needs:   Needs{Home: []string{".cli/", ".cli.json", ".missing.json"}, Hosts: []string{"api.cli.dev"}, HostEnv: []string{"CLI_BASE_URL"}},
		Config:  Config{Allow: []string{"mirror.example.com:443"}, Write: []string{"~/.cache/go-build"}},
	}
	got, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	want := Policy{
		Dir: repo, Network: NetworkHosts,
		Write:   []string{repo, filepath.Join(agentHome, ".cli"), filepath.Join(agentHome, ".cli.json"), extra},
		Protect: []string{state},
		Hide:    []string{home, agentHome},
		Read:    []string{filepath.Join(home, ".npm", "lib", "node_modules")},
		Hosts:   []Host{{Name: "api.cli.dev"}, {Name: "127.0.0.1", Port: 4321}, {Name: "mirror.example.com", Port: 443}},
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
	p := Policy{
		Dir: "/home/u/repo", Network: NetworkHosts,
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
	on := strings.Join(bwrapArgs("/usr/bin/bwrap", Policy{Network: NetworkOn, Dir: "/r", Write: []string{"/r"}}, "/x", "", []string{"cmd"}, false), "\n")
	if strings.Contains(on, "--unshare-net") || strings.Contains(on, "--uid") {
		t.Error("network on, yet a network namespace of its own; or not root, yet another user")
	}
}

// The sandbox-exec profile of the same policy (it cannot run here: its rules
// are checked as text, its grammar on macOS).
func TestSeatbeltProfile(t *testing.T) {
	t.Parallel()
	p := Policy{
		Dir: "/Users/u/repo", Network: NetworkHosts,
		Write:   []string{"/Users/u/repo", "/Users/u/.claude"},
		Protect: []string{"/Users/u/repo/.agentloop"},
		Hide:    []string{"/Users/u"},
		Read:    []string{"/Users/u/.npm/lib/node_modules"},
		Hosts:   []Host{{Name: "api.anthropic.com"}, {Name: "127.0.0.1", Port: 4321}},
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
