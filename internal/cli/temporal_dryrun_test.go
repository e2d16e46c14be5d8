//go:build temporal

package cli

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalGraphDryRun: run --tasks --dry-run runs nothing on either
// engine: with --engine temporal it says what each task would start, as on
// the local engine, and asks no server (none listens at the address).
func TestTemporalGraphDryRun(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "git")
	repo, aux := t.TempDir(), t.TempDir()
	fakeProcedures(t, repo, aux, map[string]string{"one": "write one.txt one\n"}, nil, nil)
	graphRepo(t, repo, "tasks:\n  - {id: one, title: Write one.txt, procedure: one}\n")
	var out, errOut bytes.Buffer
	d := Std()
	d.Stdout, d.Stderr = &out, &errOut
	d.Getenv = func(k string) string {
		return map[string]string{"AGENTLOOP_TEMPORAL_ADDRESS": "127.0.0.1:1", "PATH": "/usr/bin:/bin"}[k]
	}
	d.Getwd = func() (string, error) { return repo, nil }
	d.IsTerminal = func(io.Writer) bool { return false }
	err := Run(t.Context(), []string{"run", "--tasks", filepath.Join(repo, "tasks.yaml"), "--dry-run", "--engine", "temporal"}, d)
	if err != nil || !strings.Contains(out.String(), "Task one: Write one.txt") {
		t.Errorf("run --tasks --dry-run --engine temporal: %v\n%s\n%s\nwant the task's plan, and no server asked", err, out.String(), errOut.String())
	}
	if strings.Contains(out.String()+errOut.String(), "Starting task graph") {
		t.Errorf("the dry run started the graph:\n%s\n%s", out.String(), errOut.String())
	}
}
