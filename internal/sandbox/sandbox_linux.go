package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// proxyPort is the loopback port the proxy has inside the sandbox (another
// when an allowed local port is this one).
const proxyPort = 3128

// Backend names the sandbox of this system: bubblewrap.
const Backend = "bubblewrap"

// bwrapPath finds bwrap on this process's PATH.
func bwrapPath() (string, error) {
	if p := lookPath("bwrap", os.Getenv("PATH")); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("%w: bubblewrap (bwrap) is not installed: install it (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)", ErrUnavailable)
}

// Check reports whether bubblewrap is installed and can make a sandbox here:
// it makes one that runs nothing. Its error says what is missing and how to
// get it.
func Check(ctx context.Context) error {
	bwrap, err := bwrapPath()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	res, err := proc.Run(ctx, proc.Spec{
		Argv: []string{bwrap, "--unshare-pid", "--unshare-net", "--cap-drop", "ALL", "--ro-bind", "/", "/",
			"--dev", "/dev", "--proc", "/proc", "--", "sh", "-c", ":"},
		Stdout: &out, Stderr: &out, Timeout: 20 * time.Second,
	})
	if err != nil {
		return fmt.Errorf("%w: start %s: %v", ErrUnavailable, bwrap, err)
	}
	if res.ExitCode != 0 {
		msg := strings.TrimSpace(out.String())
		hint := ""
		if strings.Contains(msg, "uid map") || strings.Contains(msg, "Operation not permitted") || strings.Contains(msg, "Permission denied") {
			hint = "; unprivileged user namespaces may be turned off (Ubuntu 24.04 and later: an AppArmor profile for bwrap, or kernel.apparmor_restrict_unprivileged_userns=0)"
		}
		return fmt.Errorf("%w: %s cannot make a sandbox here (exit %d): %s%s", ErrUnavailable, bwrap, res.ExitCode, msg, hint)
	}
	return nil
}

// Version is bubblewrap's version line ("bubblewrap 0.8.0"), "" when it is
// not found.
func Version(ctx context.Context) string {
	bwrap, err := bwrapPath()
	if err != nil {
		return ""
	}
	var out bytes.Buffer
	if _, err := proc.Run(ctx, proc.Spec{Argv: []string{bwrap, "--version"}, Stdout: &out, Timeout: 10 * time.Second}); err != nil {
		return ""
	}
	return strings.TrimSpace(out.String()) + " (" + bwrap + ")"
}

// wrap runs spec under bubblewrap with policy p.
func (s *Sandbox) wrap(_ context.Context, spec proc.Spec, p policy.Policy) (proc.Spec, string, func(), error) {
	none := func() {}
	bwrap, err := bwrapPath()
	if err != nil {
		return spec, "", none, err
	}
	exe := s.Exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return spec, "", none, fmt.Errorf("sandbox: find agentloop's own binary: %w", err)
		}
	}
	about := "agentloop sandbox (" + Backend + "): " + p.String()
	if p.Network != policy.NetworkHosts {
		spec.Argv = bwrapArgs(bwrap, p, exe, "", append(insideArgs(insideExe, nil), spec.Argv...), os.Geteuid() == 0)
		return spec, about, none, nil
	}
	dir, err := socketDir()
	if err != nil {
		return spec, "", none, err
	}
	h := &hostSide{}
	done := func() {
		h.close()
		_ = os.RemoveAll(dir)
	}
	forwards := p.Forwards()
	port := freePort(proxyPort, forwards)
	l, err := net.Listen("unix", filepath.Join(dir, "proxy.sock"))
	if err != nil {
		done()
		return spec, "", none, fmt.Errorf("sandbox: listen for its proxy: %w", err)
	}
	serveProxy(h, l, p)
	listens := [][2]string{{"127.0.0.1:" + strconv.Itoa(port), insideNet + "/proxy.sock"}}
	for _, f := range forwards {
		path := forwardSocket(dir, f)
		l, err := net.Listen("unix", path)
		if err != nil {
			done()
			return spec, "", none, fmt.Errorf("sandbox: listen for %s: %w", f, err)
		}
		h.listeners = append(h.listeners, l)
		go serve(l, forward(net.JoinHostPort(f.Name, strconv.Itoa(f.Port))))
		listens = append(listens, [2]string{"127.0.0.1:" + strconv.Itoa(f.Port), insideNet + "/" + filepath.Base(path)})
	}
	spec.Env = proxyEnv(spec.Env, "127.0.0.1:"+strconv.Itoa(port))
	spec.Argv = bwrapArgs(bwrap, p, exe, dir, append(insideArgs(insideExe, listens), spec.Argv...), os.Geteuid() == 0)
	return spec, about, done, nil
}
