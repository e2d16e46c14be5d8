package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEngineChoice: the engine comes from --engine, else AGENTLOOP_ENGINE, else
// local; an unknown one is a usage error before anything runs. A build without
// the Temporal engine says how to get one; a build with it names the address of
// a server it cannot reach.
func TestEngineChoice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{}
	var out, errOut bytes.Buffer
	d := Deps{
		Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] },
		Now: time.Now, Getwd: func() (string, error) { return dir, nil },
		IsTerminal: func(io.Writer) bool { return false },
	}
	if err := runStatus(context.Background(), statusOptions{engine: engineOptions{engine: "nomad"}}, d, nil); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), `"nomad"`) {
		t.Errorf("--engine nomad: %v, want a usage error naming it", err)
	}
	env["AGENTLOOP_ENGINE"] = "temporal"
	env["AGENTLOOP_TEMPORAL_ADDRESS"] = "127.0.0.1:1"
	start := time.Now()
	err := runStatus(context.Background(), statusOptions{}, d, nil)
	if err == nil {
		t.Fatal("status on an unreachable or missing Temporal engine succeeded")
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("status took %s to fail", time.Since(start))
	}
	if !strings.Contains(err.Error(), "-tags temporal") && !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("error %q: want the build command, or the address that cannot be reached", err)
	}
	if err := runStatus(context.Background(), statusOptions{engine: engineOptions{engine: "local"}}, d, nil); err != nil {
		t.Errorf("--engine local over AGENTLOOP_ENGINE=temporal: %v", err)
	}
}

// TestTemporalServerPrecedence: the server, namespace and task queue each come
// from the flag, else AGENTLOOP_TEMPORAL_*, else the configuration's
// temporal: keys, else the defaults.
func TestTemporalServerPrecedence(t *testing.T) {
	t.Parallel()
	withConfig, without := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(withConfig, "agentloop.yaml"), []byte("temporal: {address: 'cfg:7000', namespace: cfgns}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		dir  string
		env  map[string]string
		flag engineOptions
		want engineOptions
	}{
		{name: "defaults", dir: without, want: engineOptions{address: "127.0.0.1:7233", namespace: "default", taskQueue: "agentloop"}},
		{name: "configuration", dir: withConfig, want: engineOptions{address: "cfg:7000", namespace: "cfgns", taskQueue: "agentloop"}},
		{name: "environment over configuration", dir: withConfig,
			env:  map[string]string{"AGENTLOOP_TEMPORAL_ADDRESS": "env:7001", "AGENTLOOP_TEMPORAL_TASK_QUEUE": "envq"},
			want: engineOptions{address: "env:7001", namespace: "cfgns", taskQueue: "envq"}},
		{name: "flags over all", dir: withConfig,
			env:  map[string]string{"AGENTLOOP_TEMPORAL_ADDRESS": "env:7001"},
			flag: engineOptions{address: "flag:7002", namespace: "flagns"},
			want: engineOptions{address: "flag:7002", namespace: "flagns", taskQueue: "agentloop"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Deps{Getenv: func(k string) string { return tt.env[k] }, Getwd: func() (string, error) { return tt.dir, nil }}
			tt.flag.engine, tt.want.engine = "temporal", "temporal"
			if got := tt.flag.resolved(d); got != tt.want {
				t.Errorf("resolved = %+v, want %+v", got, tt.want)
			}
		})
	}
}
