package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// Backend names the sandbox of this system: sandbox-exec.
const Backend = "sandbox-exec"

const sandboxExec = "/usr/bin/sandbox-exec"

// Check reports whether sandbox-exec can run a command here.
func Check(ctx context.Context) error {
	if _, err := os.Stat(sandboxExec); err != nil {
		return fmt.Errorf("%w: %s is missing: %v", ErrUnavailable, sandboxExec, err)
	}
	var out strings.Builder
	res, err := proc.Run(ctx, proc.Spec{Argv: []string{sandboxExec, "-p", "(version 1)(allow default)", "/usr/bin/true"},
		Stdout: &out, Stderr: &out, Timeout: 20 * time.Second})
	if err != nil {
		return fmt.Errorf("%w: start %s: %v", ErrUnavailable, sandboxExec, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("%w: %s cannot make a sandbox here (exit %d): %s", ErrUnavailable, sandboxExec, res.ExitCode, strings.TrimSpace(out.String()))
	}
	return nil
}

// Version says where sandbox-exec is ("" when it is missing).
func Version(context.Context) string {
	if _, err := os.Stat(sandboxExec); err != nil {
		return ""
	}
	return "sandbox-exec (" + sandboxExec + ")"
}

// wrap runs spec under sandbox-exec with policy p: the proxy listens on a
// loopback port of agentloop's own, which the profile lets the command reach,
// and TMPDIR is a private folder.
func (s *Sandbox) wrap(_ context.Context, spec proc.Spec, p policy.Policy) (proc.Spec, string, func(), error) {
	none := func() {}
	tmp, err := os.MkdirTemp("", "agentloop-sandbox-tmp-")
	if err != nil {
		return spec, "", none, fmt.Errorf("sandbox: create its temporary folder: %w", err)
	}
	h := &hostSide{}
	done := func() {
		h.close()
		_ = os.RemoveAll(tmp)
	}
	port := 0
	if p.Network == policy.NetworkHosts {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			done()
			return spec, "", none, fmt.Errorf("sandbox: listen for its proxy: %w", err)
		}
		serveProxy(h, l, p)
		addr, ok := l.Addr().(*net.TCPAddr)
		if !ok {
			done()
			return spec, "", none, errors.New("sandbox: its proxy has no TCP port")
		}
		port = addr.Port
		spec.Env = proxyEnv(spec.Env, "127.0.0.1:"+strconv.Itoa(port))
	}
	spec.Env = append(spec.Env, "TMPDIR="+tmp)
	spec.Argv = append([]string{sandboxExec, "-p", SeatbeltProfile(p, port, tmp)}, spec.Argv...)
	return spec, "agentloop sandbox (" + Backend + "): " + p.String(), done, nil
}
