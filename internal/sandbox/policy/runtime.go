package policy

import (
	"encoding/json"
	"fmt"
)

// Runtime is a settings file of Anthropic's sandbox-runtime (srt, the sandbox
// of Claude Code): the parts agentloop's policy can take.
type Runtime struct {
	Filesystem struct {
		AllowWrite []string `json:"allowWrite"` // writable besides the work tree
		DenyWrite  []string `json:"denyWrite"`  // must not be writable
		DenyRead   []string `json:"denyRead"`   // must not be readable
	} `json:"filesystem"`
	Network struct {
		AllowedDomains []string `json:"allowedDomains"` // the hosts it may reach
		DeniedDomains  []string `json:"deniedDomains"`  // hosts it must not reach
	} `json:"network"`
}

// ParseRuntime reads a sandbox-runtime settings file: its allowed domains
// must be hosts agentloop's allow-list takes ([ParseHost]), and no denied
// domain may be one an allowed one lets through (agentloop's list only
// allows).
func ParseRuntime(b []byte) (Runtime, error) {
	var r Runtime
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("read sandbox-runtime settings: %w", err)
	}
	var hosts []Host
	for _, d := range r.Network.AllowedDomains {
		h, err := ParseHost(d)
		if err != nil {
			return r, fmt.Errorf("sandbox-runtime settings: allowedDomains: %w", err)
		}
		hosts = append(hosts, h)
	}
	p := Policy{Network: NetworkHosts, Hosts: hosts}
	for _, d := range r.Network.DeniedDomains {
		h, err := ParseHost(d)
		if err != nil {
			return r, fmt.Errorf("sandbox-runtime settings: deniedDomains: %w", err)
		}
		name := h.Name
		if h.Wildcard {
			name = "x." + name // any subdomain
		}
		overlap := p.Allowed(name, h.Port) || h.Port == 0 && p.Allowed(name, 443)
		for _, a := range hosts {
			overlap = overlap || !a.Wildcard && h.Matches(a.Name, max(a.Port, 443))
		}
		if overlap {
			return r, fmt.Errorf("sandbox-runtime settings: deniedDomains %q is let through by allowedDomains, and agentloop's allow-list cannot take a host out: list the allowed hosts one by one", d)
		}
	}
	return r, nil
}
