package cli

import (
	"bytes"
	"context"
	"io"
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
