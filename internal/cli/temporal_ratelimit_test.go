//go:build temporal

package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalRateLimitNotifiedByWorker: on a real dev server, a run whose
// agent is rate limited in its first iteration is told rate_limited by the
// worker that waits it out (the workflow hears of the step only once the
// wait is over) and finished by its follower: each once, signed, engine
// temporal.
func TestTemporalRateLimitNotifiedByWorker(t *testing.T) {
	testenv.NeedTool(t, "git")
	t.Setenv("AGENTLOOP_BACKOFF_BASE", "100ms")
	url, got := signedHooks(t)
	t.Setenv("HOOK_URL", url)
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	fake, err := filepath.Abs(filepath.Join("..", "..", "cmd", "agentloop", "testdata", "fake"))
	if err != nil {
		t.Fatal(err)
	}
	fakeProcedures(t, repo, aux, map[string]string{
		"limited": "[1]\nprintfile " + fake + "/claude-ratelimit-now.jsonl\nexit 1\n[*]\nprintfile " + fake + "/claude-ok.jsonl\n",
	}, map[string]string{"limited": "claude"}, map[string]string{"limited": "    limits: {max_iterations: 1}\n"})
	cfg := filepath.Join(repo, "agentloop.yaml")
	writeFile(t, cfg, readFile(t, cfg)+"notify:\n  webhook: {url_env: HOOK_URL}\n  rate_limit_after: 10ms\n")
	graphRepo(t, repo, "tasks: []\n")
	run := cliOn(t, addr, repo)

	stdout, stderr, err := run("run", "limited", "--engine", "temporal")
	if err != nil {
		t.Fatalf("run limited: %v\n%s\n%s", err, stdout, stderr)
	}
	time.Sleep(500 * time.Millisecond) // a late duplicate would come now
	var seen []string
	for _, h := range got() {
		if h.Run.Name != "limited" || h.Run.Engine != "temporal" {
			t.Errorf("notification %+v: want run limited, engine temporal", h)
		}
		if h.Type == "rate_limited" && h.WaitMS <= 0 {
			t.Errorf("rate_limited with no wait: %+v", h)
		}
		seen = append(seen, h.Type)
	}
	if strings.Join(seen, " ") != "rate_limited finished" {
		t.Errorf("notifications %q, want rate_limited then finished, each once", seen)
	}
}
