package sandbox

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// InsideCommand is the first argument that makes agentloop's binary run as
// its part inside a sandbox ([Inside]); the command line parses it before
// anything else.
const InsideCommand = "sandbox-inside"

// ErrUnavailable is the error of [Check] (and of every [Sandbox.Wrap]) on a
// system with no sandbox agentloop can use.
var ErrUnavailable = errors.New("no sandbox on this system")

// Sandbox runs commands in the sandbox this system has, each under the
// [policy.Policy] made for it (see [Build]) from its folder, its environment and
// what it runs.
type Sandbox struct {
	Needs  policy.Needs  // what the agent's CLI needs (none for gates)
	Config policy.Config // what the person configured
	Exe    string        // agentloop's binary: the bridge inside (Linux)
	State  string        // agentloop's state folder: read-only inside
	Home   string        // agentloop's $HOME: hidden
	// Tree returns the work tree holding dir and its git folders, which are
	// writable (gitx.Dirs); nil, or an error, leaves dir alone writable.
	Tree func(ctx context.Context, dir string) ([]string, error)
}

// New is the sandbox of a command with needs, as cfg configures it, that
// keeps agentloop's state folder (stateDir) read-only and its home hidden;
// the command's work tree and its git folders are writable (gitx.Dirs).
func New(needs policy.Needs, cfg policy.Config, stateDir, home string) *Sandbox {
	return &Sandbox{Needs: needs, Config: cfg, State: stateDir, Home: home, Tree: gitx.Dirs}
}

// Policy makes the policy of a command run in dir with env (nil: this
// process's) that runs program, as a run would (see [Input.Create]: it
// creates nothing).
func (s *Sandbox) Policy(ctx context.Context, dir string, env []string, program string) (policy.Policy, error) {
	return s.policy(ctx, dir, env, program, false)
}

func (s *Sandbox) policy(ctx context.Context, dir string, env []string, program string, create bool) (policy.Policy, error) {
	if env == nil {
		env = os.Environ()
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return policy.Policy{}, err
		}
		dir = wd
	}
	tree := []string{dir}
	if s.Tree != nil {
		if t, err := s.Tree(ctx, dir); err == nil && len(t) > 0 {
			tree = t
		}
	}
	return Build(Input{Dir: dir, Tree: tree, State: s.State, Home: s.Home, Env: env, Program: program, Needs: s.Needs, Config: s.Config, Create: create})
}

// Wrap returns spec made to run inside the sandbox, a line that says what the
// sandbox allows (for the agent's log) and what to call once the command has
// ended (it stops what serves the sandbox's network). The command sees the
// proxy in HTTP_PROXY and HTTPS_PROXY when its network is limited to hosts.
func (s *Sandbox) Wrap(ctx context.Context, spec proc.Spec) (proc.Spec, string, func(), error) {
	if len(spec.Argv) == 0 {
		return spec, "", func() {}, errors.New("sandbox: empty command line")
	}
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	p, err := s.policy(ctx, spec.Dir, env, spec.Argv[0], true)
	if err != nil {
		return spec, "", func() {}, fmt.Errorf("sandbox: %w", err)
	}
	spec.Env = slices.Clone(env)
	return s.wrap(ctx, spec, p) // sandbox_linux.go, sandbox_darwin.go
}

// proxyEnv points a command at the proxy at addr (host:port).
func proxyEnv(env []string, addr string) []string {
	url := "http://" + addr
	set := map[string]string{
		"HTTP_PROXY": url, "HTTPS_PROXY": url, "http_proxy": url, "https_proxy": url,
		"NO_PROXY": "localhost,127.0.0.1,::1", "no_proxy": "localhost,127.0.0.1,::1",
		"NODE_USE_ENV_PROXY": "1", // Node 24's fetch reads the variables above only with it
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok && k != "ALL_PROXY" && k != "all_proxy" {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}

// serveProxy serves the policy's proxy on l.
func serveProxy(h *hostSide, l net.Listener, p policy.Policy) {
	h.server = &http.Server{Handler: &Proxy{Policy: p, dial: net.Dialer{Timeout: dialTimeout}}, ReadHeaderTimeout: time.Minute}
	h.listeners = append(h.listeners, l)
	go func() { _ = h.server.Serve(l) }()
}

// freePort is the first port from want that no forward uses.
func freePort(want int, forwards []policy.Host) int {
	for port := want; ; port++ {
		if !slices.ContainsFunc(forwards, func(h policy.Host) bool { return h.Port == port }) {
			return port
		}
	}
}

// socketDir makes the private folder of a sandbox's Unix sockets.
func socketDir() (string, error) {
	dir, err := os.MkdirTemp("", "agentloop-sandbox-")
	if err != nil {
		return "", fmt.Errorf("sandbox: create the folder of its sockets: %w", err)
	}
	return dir, nil
}

// forwardSocket is the name of the socket that forwards an allowed local port.
func forwardSocket(dir string, h policy.Host) string {
	return filepath.Join(dir, "fwd-"+strconv.Itoa(h.Port)+".sock")
}
