//go:build temporal

package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTemporalConnectionSettings: the commands read the connection as the
// Temporal CLI does (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_*),
// agentloop's own settings and the flags over it; TLS settings that cannot
// make a connection are a usage error naming what is wrong, before any dial;
// the flags of the connection are named in the commands a run shows, never
// an API key.
func TestTemporalConnectionSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing-ca.pem")
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{name: "TEMPORAL_ADDRESS", env: map[string]string{"TEMPORAL_ADDRESS": "127.0.0.1:9"}, code: ExitFailure,
			want: "cannot reach the Temporal server at 127.0.0.1:9 (namespace default, no TLS)"},
		{name: "AGENTLOOP_TEMPORAL_ADDRESS over TEMPORAL_ADDRESS", env: map[string]string{"TEMPORAL_ADDRESS": "127.0.0.1:8", "AGENTLOOP_TEMPORAL_ADDRESS": "127.0.0.1:9"},
			code: ExitFailure, want: "at 127.0.0.1:9 "},
		{name: "the flag over both", env: map[string]string{"TEMPORAL_ADDRESS": "127.0.0.1:8", "AGENTLOOP_TEMPORAL_ADDRESS": "127.0.0.1:7"},
			args: []string{"--temporal-address", "127.0.0.1:9", "--temporal-namespace", "ns1"}, code: ExitFailure, want: "at 127.0.0.1:9 (namespace ns1, "},
		{name: "an API key from the environment is never shown", env: map[string]string{"TEMPORAL_ADDRESS": "127.0.0.1:9", "TEMPORAL_API_KEY": "sekrit-key"},
			code: ExitFailure, want: "(namespace default, TLS, an API key)"},
		{name: "a certificate without its key", args: []string{"--temporal-tls-cert-path", missing}, code: ExitUsage, want: "other must be present"},
		{name: "a CA file that is missing", args: []string{"--temporal-tls-ca-path", missing}, code: ExitUsage, want: missing},
		{name: "a profile that is not there", args: []string{"--temporal-profile", "prod", "--temporal-config-file", missing}, code: ExitUsage, want: "profile prod"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			d := Deps{
				Stdout: &out, Stderr: &errOut, Environ: func() []string { return nil },
				Now: time.Now, Getwd: func() (string, error) { return dir, nil },
				IsTerminal: func(io.Writer) bool { return false },
			}
			env := map[string]string{"TEMPORAL_CONFIG_FILE": missing}
			for k, v := range tt.env {
				env[k] = v
			}
			d.Getenv = func(k string) string { return env[k] }
			err := Run(context.Background(), append([]string{"status", "--engine", "temporal"}, tt.args...), d)
			if ExitCode(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("status: exit %d, %v; want exit %d and %q", ExitCode(err), err, tt.code, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "sekrit") {
				t.Errorf("the error shows the API key: %v", err)
			}
		})
	}

	lo := loopOptions{given: []givenFlag{
		{name: "agent-cmd", values: []string{"claude"}}, {name: "temporal-address", values: []string{"h:1"}},
		{name: "temporal-tls-ca-path", values: []string{"/etc/ca.pem"}}, {name: "temporal-profile", values: []string{"prod"}},
	}}
	if got, want := lo.serverFlags(), "--temporal-address=h:1 --temporal-tls-ca-path=/etc/ca.pem --temporal-profile=prod"; got != want {
		t.Errorf("serverFlags() = %q, want %q", got, want)
	}
	if got := strings.Join(lo.recorded(), " "); got != "--agent-cmd=claude" {
		t.Errorf("recorded() = %q, want the connection's flags left out of what the run records", got)
	}
}
