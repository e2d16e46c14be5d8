package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// privateDirs are the shared scratch and runtime folders the sandbox replaces
// by empty ones of its own.
var privateDirs = []string{"/tmp", "/var/tmp", "/run", "/dev/shm"}

// Input is what a [policy.Policy] is made from.
type Input struct {
	Dir   string   // the command's working folder
	Tree  []string // the work tree and its git folders: writable
	State string   // agentloop's state folder: read-only inside ("" for none)
	Home  string   // agentloop's own $HOME: hidden
	// Env is the command's environment: its HOME (hidden too, and where the
	// CLI's folders are), its PATH (installations under a hidden folder stay
	// readable) and the variables the Needs name.
	Env     []string
	Program string // what it runs: a name on its PATH, or a path
	Needs   policy.Needs
	Config  policy.Config // its ~ is agentloop's $HOME
	// Create makes the CLI's own folders that are missing (Needs.Home
	// entries ending in "/"), so that what it writes there is kept; without
	// it they are listed all the same (to say what a run would allow).
	Create bool
}

// Build makes the policy of a command; paths are resolved through symbolic
// links. A path the person configured must exist.
func Build(in Input) (policy.Policy, error) {
	if err := in.Config.Validate(); err != nil {
		return policy.Policy{}, err
	}
	rt, err := readRuntime(&in)
	if err != nil {
		return policy.Policy{}, err
	}
	env := envMap(in.Env)
	home := env["HOME"]
	if home == "" {
		home = in.Home
	}
	p := policy.Policy{Dir: resolve(in.Dir), Network: in.Config.Network}
	if p.Network == "" {
		p.Network = policy.NetworkHosts
	}
	for _, h := range []string{in.Home, home} {
		if h = resolve(h); h != "" && h != "/" && isDir(h) {
			p.Hide = addUnique(p.Hide, h)
		}
	}
	for _, t := range in.Tree {
		p.Write = addUnique(p.Write, resolve(t))
	}
	if !anyWithin(p.Dir, p.Write) {
		p.Write = addUnique(p.Write, p.Dir)
	}
	for _, rel := range in.Needs.Home {
		path := filepath.Join(home, rel)
		dir := strings.HasSuffix(rel, "/")
		if dir && in.Create {
			if err := os.MkdirAll(path, 0o700); err != nil {
				return policy.Policy{}, fmt.Errorf("create %s for the agent's sandbox: %w", path, err)
			}
		}
		if exists(path) || dir && !in.Create {
			p.Write = addUnique(p.Write, resolve(path))
		}
	}
	for _, name := range in.Needs.HomeEnv {
		if v := env[name]; v != "" && exists(v) {
			p.Write = addUnique(p.Write, resolve(v))
		}
	}
	for _, w := range in.Config.Write {
		path := expandHome(w, in.Home)
		if !exists(path) {
			return policy.Policy{}, fmt.Errorf("sandbox write: %s does not exist", path)
		}
		p.Write = addUnique(p.Write, resolve(path))
	}
	if s := resolve(in.State); s != "" && anyWithin(s, p.Write) {
		p.Protect = addUnique(p.Protect, s)
	}
	for _, path := range gitControls(in.Tree, in.Create) {
		if anyWithin(path, p.Write) {
			p.Protect = addUnique(p.Protect, path)
		}
	}
	// What the command runs, and what it may run, where it lives in a hidden
	// folder (a CLI installed under $HOME: npm's prefix, nvm, ~/.local) or in
	// one the sandbox replaces by its own (/tmp).
	// A folder the sandbox hides or replaces is never bound whole: a program
	// right in it (/tmp/agent.sh) is bound alone, or the agent would see all
	// of it, and bubblewrap could not put agentloop's own parts in a /tmp
	// bound read-only.
	hidden := append(slices.Clone(p.Hide), privateDirs...)
	for _, dir := range filepath.SplitList(env["PATH"]) {
		if dir = resolve(dir); filepath.IsAbs(dir) && anyWithin(dir, hidden) && !anyWithin(dir, p.Write) && isDir(dir) {
			if root := installRoot(dir); !slices.Contains(hidden, root) {
				p.Read = addUnique(p.Read, root)
			}
		}
	}
	if prog := lookPath(in.Program, env["PATH"]); prog != "" && anyWithin(prog, hidden) && !anyWithin(prog, p.Write) {
		root := installRoot(filepath.Dir(prog))
		if slices.Contains(hidden, root) {
			root = prog
		}
		p.Read = addUnique(p.Read, root)
	}
	for _, r := range in.Config.Read {
		path := expandHome(r, in.Home)
		if !exists(path) {
			return policy.Policy{}, fmt.Errorf("sandbox read: %s does not exist", path)
		}
		p.Read = addUnique(p.Read, resolve(path))
	}
	var hosts []string
	hosts = append(hosts, in.Needs.Hosts...)
	for _, name := range in.Needs.HostEnv {
		if h := hostOfURL(env[name]); h != "" {
			hosts = append(hosts, h)
		}
	}
	hosts = append(hosts, in.Config.Allow...)
	for _, s := range hosts {
		h, err := policy.ParseHost(s)
		if err != nil {
			return policy.Policy{}, err
		}
		if !containsHost(p.Hosts, h) {
			p.Hosts = append(p.Hosts, h)
		}
	}
	if err := rt.deny(&p); err != nil {
		return policy.Policy{}, err
	}
	return p, nil
}

func containsHost(hs []policy.Host, h policy.Host) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// installRoot is the folder that holds an installation a program in dir
// belongs to: the node_modules folder of an npm package (whose .bin links
// point into it), else dir itself.
func installRoot(dir string) string {
	const nm = string(filepath.Separator) + "node_modules"
	if i := strings.LastIndex(dir+string(filepath.Separator), nm+string(filepath.Separator)); i >= 0 {
		return dir[:i+len(nm)]
	}
	return dir
}

// lookPath finds prog as a shell would on path, resolved; "" when it is not found.
func lookPath(prog, path string) string {
	if prog == "" {
		return ""
	}
	if strings.Contains(prog, "/") {
		if exists(prog) {
			return resolve(prog)
		}
		return ""
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, prog)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return resolve(p)
		}
	}
	return ""
}

// resolve makes path absolute and follows its symbolic links, as far as it
// exists.
func resolve(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

func expandHome(path, home string) string {
	if path == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return path
}

func anyWithin(path string, dirs []string) bool {
	for _, d := range dirs {
		if within(path, d) {
			return true
		}
	}
	return false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist) && err == nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// envMap reads KEY=VALUE pairs; a later one wins.
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// hostOfURL returns the host:port a URL points at ("" when it is not one).
func hostOfURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	if u.Port() != "" {
		return u.Host
	}
	switch u.Scheme {
	case "http":
		return net.JoinHostPort(u.Hostname(), "80")
	case "https":
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return u.Hostname()
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// addUnique appends the paths not already in list.
func addUnique(list []string, paths ...string) []string {
	for _, p := range paths {
		if p != "" && !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	return list
}
