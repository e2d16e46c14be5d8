package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestErrors checks that every problem is reported at once, with its place and
// what was expected (golden: testdata/TestErrors.golden).
func TestErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, global, ws string
		getenv           func(string) string
	}{
		{name: "syntax", ws: "procedures:\n  a: [\n"},
		{name: "top not a mapping", ws: "- a\n- b\n"},
		{name: "unknown keys everywhere", ws: "defualt: a\nprocedures:\n  a:\n    limit: {}\n    limits: {max_iteration: 3}\n    gates: [{name: t, run: x, requird: false}]\n"},
		{name: "wrong types", ws: `procedures:
  a:
    limits: {max_iterations: three, iteration_timeout: 30, max_cost_usd: cheap, max_tokens: -5}
    baseline: "yes please"
    gates: {tests: go test}
    agent: [claude]
    prompt: {observe: {text: a, file: b}, act: "", context: notalist}
    escalation: {on: [secrity]}
    feedback: {max_length: 1.5}
`},
		{name: "agent and gate shapes", ws: "agents:\n  x: {prompt_via: pipe}\nprocedures:\n  a:\n    agent: {args: [--yes]}\n    gates: [{name: t}, {run: []}]\n"},
		{name: "names their owners do not know", ws: `agents:
  x: {cmd: x, format: claude-stream}
  y: {cmd: y, format: yaml}
procedures:
  a:
    gates:
      - {run: go test -json ./..., format: gotest-jsn}
      - {run: make, format: xyzzy}
      - {run: pytest, format: pytest, rerun: failing}
    escalation: {on: [conflict, test_tampering, protected_path, secrity]}
`},
		{name: "reviewer without agent", ws: "procedures:\n  a:\n    reviewer: {prompt: r.md}\n"},
		{name: "bad default", ws: "default: nope\nprocedures:\n  a: {}\n"},
		{name: "bad name", ws: "procedures:\n  ../x: {}\n"},
		// One name rule for a procedure and the run it names (state's), checked here.
		{name: "name with a space", ws: "procedures:\n  ok: {}\n  \"my build\": {}\n"},
		{name: "duplicate and merge keys", ws: "defaults: &d {baseline: true}\nprocedures:\n  a: {}\n  a: {}\n  b:\n    <<: *d\n"},
		{name: "global and workspace together", global: "log_format: yaml\n", ws: "state_dir: [a]\n"},
		{name: "temporal keys", ws: "temporal: {adress: x, address: nohost, task_queue: [a], heartbeat_timeout: soon}\n"},
		{name: "notify keys", ws: `notify:
  webhok: https://x.example
  webhook: [{url: "ftp://x"}, {url: https://a.example, url_env: HOOK}, {secret_env: S}]
  slack: {url: https://hooks.example, token_env: T}
  ntfy: "https://"
  events: [needs_you, finshed]
  command: []
  retries: many
  timeout: 10
`},
		{name: "environment", ws: "procedures:\n  a: {}\n", getenv: env("AGENTLOOP_MAX_ITERATIONS", "many", "AGENTLOOP_TIMEOUT", "soon",
			"AGENTLOOP_LOG_FORMAT", "xml", "AGENTLOOP_AGENT", "a", "AGENTLOOP_AGENT_CMD", "b", "AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT", "-5s")},
	}
	var got strings.Builder
	for _, tt := range cases {
		_, err := load(t, tt.global, tt.ws, tt.getenv, Overrides{})
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error does not wrap ErrInvalid: %v", tt.name, err)
		}
		for _, p := range Problems(err) {
			if p.Where == "" || (strings.HasSuffix(p.Where, ".yaml") && p.Line == 0) {
				t.Errorf("%s: problem without a place: %v", tt.name, p)
			}
		}
		got.WriteString("== " + tt.name + "\n" + err.Error() + "\n\n")
	}
	golden(t, got.String())
}

func golden(t *testing.T, got string) {
	t.Helper()
	path := filepath.Join("testdata", t.Name()+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
