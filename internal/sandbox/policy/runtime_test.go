package policy

import (
	"strings"
	"testing"
)

// A sandbox-runtime settings file: its allowed domains are hosts of the
// allow-list; a denied domain that an allowed one lets through cannot be
// honoured (the allow-list only allows) and is an error, one outside them is
// honoured as it is.
func TestParseRuntime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, json, err string
	}{
		{"the README's", `{"network":{"allowedDomains":["github.com","*.github.com"],"deniedDomains":["malicious.com"]},
			"filesystem":{"denyRead":["~/.ssh"],"allowWrite":[".","/tmp"],"denyWrite":[".env"]},"ignoreViolations":{}}`, ""},
		{"not JSON", `{"network":`, "read sandbox-runtime settings"},
		{"a URL for a domain", `{"network":{"allowedDomains":["https://github.com"]}}`, "allowedDomains: host \"https://github.com\": give a host"},
		{"a denied subdomain of an allowed wildcard", `{"network":{"allowedDomains":["*.github.com"],"deniedDomains":["gist.github.com"]}}`, `deniedDomains "gist.github.com" is let through`},
		{"a denied wildcard over an allowed host", `{"network":{"allowedDomains":["api.github.com"],"deniedDomains":["*.github.com"]}}`, `deniedDomains "*.github.com" is let through`},
		{"a denied host allowed", `{"network":{"allowedDomains":["a.dev"],"deniedDomains":["a.dev"]}}`, `deniedDomains "a.dev" is let through`},
	} {
		r, err := ParseRuntime([]byte(tc.json))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.err)
		}
		if tc.err == "" && (len(r.Network.AllowedDomains) != 2 || r.Filesystem.DenyWrite[0] != ".env" || r.Filesystem.DenyRead[0] != "~/.ssh" || len(r.Filesystem.AllowWrite) != 2) {
			t.Errorf("%s: read %+v", tc.name, r)
		}
	}
}
