package proc

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// cgroupBase is the directory of this process's cgroup in the cgroup v2
// hierarchy, "" when there is none (cgroup v1 only, or not mounted).
func cgroupBase() string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var rel string
	found := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
			break
		}
	}
	if !found {
		return ""
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional…] - fstype source super
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		fields := strings.Fields(pre)
		if len(fields) < 5 {
			continue
		}
		root, mount := unescapeMount(fields[3]), unescapeMount(fields[4])
		sub, ok := strings.CutPrefix(rel, root)
		if !ok || sub != "" && root != "/" && !strings.HasPrefix(sub, "/") {
			continue
		}
		return filepath.Join(mount, sub)
	}
	return ""
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Contains says how runs started under g contain the processes that leave
// their process group and drop their marker, on this system: in a cgroup of
// their own when agentloop can make one (it makes and removes one to know),
// else as orphans agentloop adopts as subreaper.
func (g *Groups) Contains() Containment {
	why := "cgroups are turned off"
	if g.cgroups() {
		why = "no cgroup v2 this process may create"
		base := g.cgroupRoot()
		if c := newCgroup(base, "probe-"+strconv.Itoa(os.Getpid())); c != nil {
			c.end(0)
			if syscall.Access(filepath.Join(base, "cgroup.procs"), 2 /* W_OK */) == nil {
				return Containment{Kind: ContainCgroup, Where: base}
			}
		}
	}
	return Containment{Kind: ContainSubreaper, Why: why}
}
