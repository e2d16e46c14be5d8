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

// TestTemporalServerPrecedence: the server, namespace, task queue and
// heartbeat timeout each come from the flag, else AGENTLOOP_TEMPORAL_*, else
// the temporal: keys of the configuration (--config FILE, else the
// workspace's), else the defaults.
func TestTemporalServerPrecedence(t *testing.T) {
	t.Parallel()
	withConfig, without := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(withConfig, "agentloop.yaml"), []byte("temporal: {address: 'cfg:7000', namespace: cfgns, heartbeat_timeout: 45s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(other, []byte("temporal: {address: 'file:7003', task_queue: fileq, heartbeat_timeout: 2m}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		dir  string
		env  map[string]string
		flag engineOptions
		want engineOptions
	}{
		{name: "defaults: the Temporal client configuration's", dir: without, want: engineOptions{taskQueue: "agentloop"}},
		{name: "configuration", dir: withConfig, want: engineOptions{address: "cfg:7000", namespace: "cfgns", taskQueue: "agentloop", heartbeat: 45 * time.Second}},
		{name: "the --config file, not the workspace's", dir: withConfig, flag: engineOptions{config: other},
			want: engineOptions{address: "file:7003", taskQueue: "fileq", heartbeat: 2 * time.Minute, config: other}},
		{name: "environment over configuration", dir: withConfig,
			env: map[string]string{"AGENTLOOP_TEMPORAL_ADDRESS": "env:7001", "AGENTLOOP_TEMPORAL_TASK_QUEUE": "envq",
				"AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT": "10s"},
			want: engineOptions{address: "env:7001", namespace: "cfgns", taskQueue: "envq", heartbeat: 10 * time.Second}},
		{name: "flags over all", dir: withConfig,
			env:  map[string]string{"AGENTLOOP_TEMPORAL_ADDRESS": "env:7001", "AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT": "10s"},
			flag: engineOptions{address: "flag:7002", namespace: "flagns", heartbeat: 5 * time.Second},
			want: engineOptions{address: "flag:7002", namespace: "flagns", taskQueue: "agentloop", heartbeat: 5 * time.Second}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Deps{Getenv: func(k string) string { return tt.env[k] }, Getwd: func() (string, error) { return tt.dir, nil }}
			tt.flag.engine, tt.want.engine = "temporal", "temporal"
			if got, err := tt.flag.resolved(d); err != nil || got != tt.want {
				t.Errorf("resolved = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	d := Deps{Getenv: func(k string) string {
		return map[string]string{"AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT": "soon"}[k]
	}, Getwd: func() (string, error) { return without, nil }}
	if _, err := (engineOptions{}).resolved(d); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT") {
		t.Errorf("a heartbeat timeout that is not a duration: %v, want a usage error naming the variable", err)
	}
}

// TestTemporalConfigFlag: run, status, report, resume and worker read the
// server from the temporal: keys of --config FILE, not only of
// ./agentloop.yaml: each names the address of that file when it cannot reach
// it (a build without the engine says how to get one).
func TestTemporalConfigFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "elsewhere.yaml")
	conf := "temporal: {address: '127.0.0.1:9'}\nprocedures:\n  build: {agent: {cmd: [true]}}\n"
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "build"}, {"status"}, {"report", "build"}, {"resume", "build"}, {"worker"},
	} {
		t.Run(args[0], func(t *testing.T) {
			var out, errOut bytes.Buffer
			d := Deps{
				Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" },
				Now: time.Now, Getwd: func() (string, error) { return dir, nil },
				IsTerminal: func(io.Writer) bool { return false },
			}
			err := Run(context.Background(), append(args, "--engine", "temporal", "--config", file), d)
			if err == nil || !strings.Contains(err.Error(), "-tags temporal") && !strings.Contains(err.Error(), "127.0.0.1:9") {
				t.Errorf("%v: %v, want the address of --config's temporal.address", args, err)
			}
		})
	}
}
