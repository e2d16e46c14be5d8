package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// Where agentloop's own parts are inside a bubblewrap sandbox: in its
// private /tmp.
const (
	insideDir = "/tmp/.agentloop-sandbox"
	insideExe = insideDir + "/agentloop" // agentloop's binary, the bridge
	insideNet = insideDir + "/net"       // the Unix sockets to agentloop outside
)

// termIgnored runs its arguments with SIGTERM ignored: bubblewrap, which
// would die of the SIGTERM agentloop sends the agent's process group and take
// the sandbox with it before the agent could end cleanly. The bridge inside
// restores SIGTERM for the agent.
var termIgnored = []string{"sh", "-c", `trap '' TERM; exec "$0" "$@"`}

// mount is one mount of the sandbox, applied parents first.
type mount struct {
	kind int // order at the same depth: tmpfs, read-only, writable, protected
	path string
}

const (
	mountTmpfs = iota
	mountRead
	mountWrite
	mountProtect
)

// insideUID is the user the command runs as inside a sandbox that root
// starts: it stands for root outside (files keep their owners), and the
// command can make a sandbox of its own (a CLI such as Codex nests its own
// bubblewrap), which the kernel refuses to a root without capabilities.
const insideUID = "1000"

// bwrapArgs returns the command line that runs inner under bubblewrap (the
// program at bwrap) with policy p: inner is agentloop's bridge with the
// command after it, exe the binary bound at insideExe and netDir the folder of
// the Unix sockets bound at insideNet ("" when the network is not filtered).
// asRoot says that agentloop runs as root (see insideUID).
func bwrapArgs(bwrap string, p policy.Policy, exe, netDir string, inner []string, asRoot bool) []string {
	args := slices.Clone(termIgnored)
	args = append(args, bwrap,
		"--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL")
	if asRoot {
		args = append(args, "--unshare-user", "--uid", insideUID, "--gid", insideUID)
	}
	if p.Network != policy.NetworkOn {
		args = append(args, "--unshare-net")
	}
	args = append(args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	var ms []mount
	// Shared scratch and runtime folders (sockets of other programs, such as
	// a container engine's, live in /run) are private and empty.
	for _, dir := range privateDirs {
		if fi, err := os.Lstat(dir); dir == "/tmp" || dir == "/dev/shm" || err == nil && fi.IsDir() {
			ms = append(ms, mount{mountTmpfs, dir})
		}
	}
	for _, h := range p.Hide {
		ms = append(ms, mount{mountTmpfs, h})
	}
	for _, r := range p.Read {
		ms = append(ms, mount{mountRead, r})
	}
	for _, w := range p.Write {
		ms = append(ms, mount{mountWrite, w})
	}
	for _, pr := range p.Protect {
		ms = append(ms, mount{mountProtect, pr})
	}
	slices.SortStableFunc(ms, func(a, b mount) int {
		if d := depth(a.path) - depth(b.path); d != 0 {
			return d
		}
		return a.kind - b.kind
	})
	for _, m := range ms {
		switch m.kind {
		case mountTmpfs:
			args = append(args, "--tmpfs", m.path)
			if m.path == "/run" {
				// The resolver's configuration may live there (systemd-resolved).
				args = append(args, "--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve")
			}
		case mountRead, mountProtect:
			args = append(args, "--ro-bind-try", m.path, m.path)
		case mountWrite:
			args = append(args, "--bind", m.path, m.path)
		}
	}
	args = append(args, "--ro-bind", exe, insideExe)
	if netDir != "" {
		args = append(args, "--ro-bind", netDir, insideNet)
	}
	if p.Dir != "" {
		args = append(args, "--chdir", p.Dir)
	}
	args = append(args, "--")
	return append(args, inner...)
}

// depth is the number of components of an absolute path ("/" is 0).
func depth(path string) int {
	path = filepath.Clean(path)
	if path == "/" {
		return 0
	}
	return strings.Count(path, "/")
}
