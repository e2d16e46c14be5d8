package policy

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Network modes of a [Config].
const (
	NetworkOff   = "off"   // no network at all (a loopback device only)
	NetworkOn    = "on"    // the machine's network, unfiltered
	NetworkHosts = "hosts" // only the hosts on the allow-list, through agentloop's proxy (the default)
)

// NetworkModes lists the network modes, for configuration errors.
func NetworkModes() []string { return []string{NetworkOff, NetworkOn, NetworkHosts} }

// Needs is what an agent CLI needs of the machine inside the sandbox; the
// agent presets declare it.
type Needs struct {
	// Home are the paths under $HOME the CLI keeps its configuration,
	// credentials and caches in (".claude", ".claude.json"): writable inside.
	Home []string `json:"home,omitempty"`
	// HomeEnv are variables that name such a folder instead (CODEX_HOME).
	HomeEnv []string `json:"home_env,omitempty"`
	// Hosts are the hosts it talks to ("api.anthropic.com"; "*.cursor.sh" for
	// every subdomain).
	Hosts []string `json:"hosts,omitempty"`
	// HostEnv are variables whose URL points it at another model server
	// (ANTHROPIC_BASE_URL): that server's host and port are allowed too.
	HostEnv []string `json:"host_env,omitempty"`
}

// Config is what a person configured of the sandbox of an agent or of the
// gates (`sandbox:` in agentloop.yaml).
type Config struct {
	Network string   `json:"network,omitempty"` // off, on or hosts ("" = hosts)
	Allow   []string `json:"allow,omitempty"`   // more hosts: host, host:port, *.domain
	Read    []string `json:"read,omitempty"`    // more paths readable (under a hidden one); ~ is $HOME
	Write   []string `json:"write,omitempty"`   // more paths writable; ~ is $HOME
	// Settings is a settings file of Anthropic's sandbox-runtime ([Runtime]),
	// whose allowed domains and writable paths are added, and whose denied
	// reads and writes are checked or made read-only; ~ is $HOME.
	Settings string `json:"settings,omitempty"`
}

// Validate reports every problem with the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if c.Network != "" && !slices.Contains(NetworkModes(), c.Network) {
		errs = append(errs, fmt.Errorf("network %q: want one of %s", c.Network, strings.Join(NetworkModes(), ", ")))
	}
	for _, h := range c.Allow {
		if _, err := ParseHost(h); err != nil {
			errs = append(errs, fmt.Errorf("allow: %w", err))
		}
	}
	paths := append(slices.Clone(c.Read), c.Write...)
	if c.Settings != "" {
		paths = append(paths, c.Settings)
	}
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") && p != "~" {
			errs = append(errs, fmt.Errorf("path %q: want an absolute path or one under ~/", p))
		}
	}
	return errors.Join(errs...)
}

// Merge returns c with o's network and settings file (when set) and o's
// lists appended.
func (c Config) Merge(o Config) Config {
	out := Config{Network: c.Network, Allow: slices.Clone(c.Allow), Read: slices.Clone(c.Read), Write: slices.Clone(c.Write), Settings: c.Settings}
	if o.Network != "" {
		out.Network = o.Network
	}
	if o.Settings != "" {
		out.Settings = o.Settings
	}
	out.Allow = append(out.Allow, o.Allow...)
	out.Read = append(out.Read, o.Read...)
	out.Write = append(out.Write, o.Write...)
	return out
}

// Host is one entry of an allow-list: a host name or address, a port (0: any)
// and whether subdomains match ("*.example.com").
type Host struct {
	Name     string
	Port     int
	Wildcard bool
}

// ParseHost reads "api.example.com", "api.example.com:443", "*.example.com",
// "127.0.0.1:8080" or "[::1]:8080".
func ParseHost(s string) (Host, error) {
	in := s
	var h Host
	if strings.Contains(s, "://") {
		return h, fmt.Errorf("host %q: give a host or host:port, not a URL", in)
	}
	name, port := s, ""
	if strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1 { // not a bare IPv6 address
		n, p, err := net.SplitHostPort(s)
		if err != nil {
			return h, fmt.Errorf("host %q: %v", in, err)
		}
		name, port = n, p
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return h, fmt.Errorf("host %q: port %q is not a number from 1 to 65535", in, port)
		}
		h.Port = n
	}
	if rest, ok := strings.CutPrefix(name, "*."); ok {
		h.Wildcard, name = true, rest
	}
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	if name == "" || strings.ContainsAny(name, "/*? \t") {
		return h, fmt.Errorf("host %q: want a host name, an address, or *.domain", in)
	}
	h.Name = name
	return h, nil
}

// String writes the host back as it is parsed.
func (h Host) String() string {
	name := h.Name
	if h.Wildcard {
		name = "*." + name
	}
	if h.Port == 0 {
		return name
	}
	return net.JoinHostPort(name, strconv.Itoa(h.Port))
}

// Matches reports whether a connection to host:port is allowed by h.
func (h Host) Matches(host string, port int) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if h.Port != 0 && h.Port != port {
		return false
	}
	if h.Wildcard {
		return strings.HasSuffix(host, "."+h.Name)
	}
	return host == h.Name || h.Name == "localhost" && isLoopback(host) || isLoopback(h.Name) && host == "localhost"
}

// Local reports whether h is a port on this machine's loopback, which the
// sandbox forwards as it is (the agent connects to it directly).
func (h Host) Local() bool { return h.Port != 0 && (isLoopback(h.Name) || h.Name == "localhost") }

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Policy is what one sandboxed command may do: every path is absolute and
// resolved (no symbolic links).
type Policy struct {
	Dir     string   // the command's working folder
	Write   []string // writable: the work tree, its git folders, the CLI's own folders
	Read    []string // readable within a hidden folder: the CLI's installation, what the person listed
	Protect []string // read-only within a writable folder: agentloop's state, git's hooks and config
	Hide    []string // not there at all: $HOME (the agent's and agentloop's)
	Network string   // off, on or hosts
	Hosts   []Host   // with Network hosts: what it may reach
}

// Forwards are the allowed local ports, which the sandbox forwards as they are.
func (p Policy) Forwards() []Host {
	var out []Host
	for _, h := range p.Hosts {
		if h.Local() {
			out = append(out, h)
		}
	}
	return out
}

// Allowed reports whether the policy lets a connection to host:port through.
func (p Policy) Allowed(host string, port int) bool {
	if p.Network == NetworkOn {
		return true
	}
	if p.Network == NetworkOff {
		return false
	}
	for _, h := range p.Hosts {
		if h.Matches(host, port) {
			return true
		}
	}
	return false
}

// HostList is the allow-list as text: "api.anthropic.com, 127.0.0.1:4321".
func (p Policy) HostList() string {
	names := make([]string, len(p.Hosts))
	for i, h := range p.Hosts {
		names[i] = h.String()
	}
	if len(names) == 0 {
		return "no host"
	}
	return strings.Join(names, ", ")
}

// String says what the policy allows, in one paragraph for the agent's log
// and `agentloop doctor`.
func (p Policy) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "writable: %s", strings.Join(p.Write, ", "))
	if len(p.Protect) > 0 {
		fmt.Fprintf(&b, "; read-only: %s", strings.Join(p.Protect, ", "))
	}
	if len(p.Hide) > 0 {
		fmt.Fprintf(&b, "; hidden: %s", strings.Join(p.Hide, ", "))
	}
	if len(p.Read) > 0 {
		fmt.Fprintf(&b, " (but readable: %s)", strings.Join(p.Read, ", "))
	}
	b.WriteString("; /tmp private; everything else read-only; network: ")
	switch p.Network {
	case NetworkOn:
		b.WriteString("on")
	case NetworkOff:
		b.WriteString("off")
	default:
		if len(p.Hosts) == 0 {
			b.WriteString("no host allowed")
		} else {
			b.WriteString("only " + p.HostList() + " (through agentloop's proxy)")
		}
	}
	return b.String()
}
