package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

// The success scenario with the real CLI inside agentloop's sandbox
// (bubblewrap): the work tree writable, $HOME hidden, the network limited to
// the model double's host. The CLI still fixes the file with its own shell
// tool, the gate passes, and its log says what the sandbox allowed.
func TestSuccessInSandbox(t *testing.T) {
	need(t)
	testenv.NeedTool(t, "bwrap")
	t.Parallel()
	for _, name := range []string{"claude", "codex"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := lookupCLI(name)
			a := &agent{cli: c, name: c.name, srv: serve(t, editScenario), result: "success-sandbox"}
			host := strings.TrimPrefix(a.srv.url, "http://")
			l := &loop{dir: repo(t), main: a, sandbox: map[string]any{"allow": []string{host}}}
			o := l.run(t)
			logs, _ := filepath.Glob(filepath.Join(l.dir, ".agentloop", "runs", "build", "*", "iter-001", "agent.log"))
			if len(logs) != 1 {
				t.Fatalf("agent logs: %v; %s", logs, o)
			}
			b, err := os.ReadFile(logs[0])
			if err != nil {
				t.Fatal(err)
			}
			if o.code != 0 || o.report.Summary.Status != "succeeded" || !fixed(t, l.dir) {
				t.Fatalf("want a success with calc.go fixed in the sandbox; %s\n--- the first iteration's agent log\n%s", o, b)
			}
			checkUsage(t, o, a)
			head, _, _ := strings.Cut(string(b), "\n")
			if !strings.HasPrefix(head, "agentloop sandbox (bubblewrap): writable: "+l.dir) || !strings.Contains(head, "network: only ") || !strings.Contains(head, host) {
				t.Errorf("the agent's log does not start with what the sandbox allowed: %q", head)
			}
		})
	}
}
