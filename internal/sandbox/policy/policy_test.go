package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Host
		err  string
	}{
		{in: "api.anthropic.com", want: Host{Name: "api.anthropic.com"}},
		{in: "API.Example.com.:443", want: Host{Name: "api.example.com", Port: 443}},
		{in: "*.cursor.sh", want: Host{Name: "cursor.sh", Wildcard: true}},
		{in: "127.0.0.1:8080", want: Host{Name: "127.0.0.1", Port: 8080}},
		{in: "[::1]:8080", want: Host{Name: "::1", Port: 8080}},
		{in: "::1", want: Host{Name: "::1"}},
		{in: "https://api.example.com", err: "not a URL"},
		{in: "example.com:99999", err: "port"},
		{in: "example.com:http", err: "port"},
		{in: "", err: "want a host"},
		{in: "a/b", err: "want a host"},
	}
	for _, tt := range tests {
		got, err := ParseHost(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseHost(%q) = %+v, %v; want an error about %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseHost(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestAllowed(t *testing.T) {
	t.Parallel()
	hosts := func(ss ...string) []Host {
		var out []Host
		for _, s := range ss {
			h, err := ParseHost(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, h)
		}
		return out
	}
	p := Policy{Network: NetworkHosts, Hosts: hosts("api.anthropic.com", "*.cursor.sh", "127.0.0.1:4321", "localhost:5000")}
	tests := []struct {
		host string
		port int
		want bool
	}{
		{"api.anthropic.com", 443, true},
		{"API.ANTHROPIC.COM.", 80, true},
		{"evil-api.anthropic.com", 443, false},
		{"anthropic.com", 443, false},
		{"api2.cursor.sh", 443, true},
		{"cursor.sh", 443, false},
		{"127.0.0.1", 4321, true},
		{"localhost", 4321, true},
		{"127.0.0.1", 4322, false},
		{"127.0.0.1", 5000, true},
		{"example.com", 443, false},
	}
	for _, tt := range tests {
		if got := p.Allowed(tt.host, tt.port); got != tt.want {
			t.Errorf("Allowed(%s, %d) = %v, want %v", tt.host, tt.port, got, tt.want)
		}
	}
	if (Policy{Network: NetworkOff, Hosts: p.Hosts}).Allowed("api.anthropic.com", 443) {
		t.Error("network off let a host through")
	}
	if !(Policy{Network: NetworkOn}).Allowed("example.com", 443) {
		t.Error("network on refused a host")
	}
	if got := p.Forwards(); len(got) != 2 || got[0].Port != 4321 || got[1].Port != 5000 {
		t.Errorf("Forwards = %v, want the two local ports", got)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	err := Config{Network: "partly", Allow: []string{"http://x"}, Write: []string{"rel/path"}, Read: []string{"~/ok", "/ok"}}.Validate()
	for _, want := range []string{`network "partly"`, "not a URL", `"rel/path": want an absolute path`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to say %q", err, want)
		}
	}
	if err := (Config{Network: NetworkOff, Allow: []string{"a.b:1"}, Write: []string{"~/x", "/y"}}).Validate(); err != nil {
		t.Errorf("a valid configuration: %v", err)
	}
	merged := Config{Network: NetworkOff, Allow: []string{"a"}}.Merge(Config{Allow: []string{"b"}, Write: []string{"/w"}})
	if diff := cmp.Diff(Config{Network: NetworkOff, Allow: []string{"a", "b"}, Write: []string{"/w"}}, merged); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
}
