package sandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// SeatbeltProfile is policy p as a sandbox-exec profile (macOS Seatbelt,
// SBPL), for a command whose proxy listens on the loopback port proxyPort
// (0: none) and whose private temporary folder is tmp. Later rules win over
// earlier ones: everything is allowed, then writes are denied but where the
// policy allows them, hidden folders are denied but what is re-exposed in
// them, and the network is denied but the proxy and the allowed local ports.
// A process inside cannot change its profile.
func SeatbeltProfile(p policy.Policy, proxyPort int, tmp string) string {
	var b strings.Builder
	rule := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	// subpaths writes one rule over every path (none when there is none).
	subpaths := func(head string, paths []string) {
		if len(paths) == 0 {
			return
		}
		rule("(%s", head)
		for _, path := range paths {
			rule("  (subpath %s)", sbplString(path))
		}
		rule(")")
	}
	rule("(version 1)")
	rule("(allow default)")
	rule("; writes: the work tree, the CLI's own folders, a private temporary folder")
	rule("(deny file-write*)")
	writable := append([]string{tmp}, p.Write...)
	rule("(allow file-write*")
	for _, w := range writable {
		rule("  (subpath %s)", sbplString(w))
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/dtracehelper"} {
		rule("  (literal %s)", sbplString(dev))
	}
	rule("  (regex #\"^/dev/fd/\"))")
	if len(p.Hide) > 0 {
		rule("; hidden: $HOME, but the CLI's folders and installation")
		subpaths("deny file-read* file-write*", p.Hide)
		var open, rw []string
		for _, path := range append(slices.Clone(p.Read), writable...) {
			if anyWithin(path, p.Hide) {
				open = append(open, path)
			}
		}
		for _, w := range writable {
			if anyWithin(w, p.Hide) {
				rw = append(rw, w)
			}
		}
		subpaths("allow file-read*", open)
		subpaths("allow file-write*", rw)
		rule("; the folders on the way to what stays readable can be looked up, not listed")
		rule("(allow file-read-metadata (vnode-type DIRECTORY))")
	}
	if len(p.Protect) > 0 {
		rule("; agentloop's state, git's hooks and config: read-only, last so that nothing above opens them")
		subpaths("deny file-write*", p.Protect)
	}
	switch p.Network {
	case policy.NetworkOn:
		rule("; network: on")
	default:
		rule("; network: %s", p.Network)
		rule("(deny network*)")
		rule("(allow network-bind network-inbound (local ip \"localhost:*\"))")
		rule("(allow network-outbound (remote unix-socket (path-literal \"/private/var/run/mDNSResponder\")))")
		var ports []int
		if p.Network == policy.NetworkHosts && proxyPort > 0 {
			ports = append(ports, proxyPort)
			for _, f := range p.Forwards() {
				ports = append(ports, f.Port)
			}
		}
		for _, port := range ports {
			rule("(allow network-outbound (remote ip %s))", sbplString("localhost:"+strconv.Itoa(port)))
		}
	}
	return b.String()
}

// sbplString quotes s as an SBPL string.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
