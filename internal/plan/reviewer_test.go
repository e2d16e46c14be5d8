package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
)

// TestReviewRedactsDecodedVerdict: a secret in the reviewer's verdict JSON is
// escaped there (& as \u0026, < as \u003c, a quote as \"), where the
// redaction of its output may not see it (client_secret=\"…\": the
// catalog's rule takes quotes, not escaped ones); the verdict agentloop
// records, its findings and summary decoded, holds none.
func TestReviewRedactsDecodedVerdict(t *testing.T) {
	t.Parallel()
	const pw, oauth = "Zq8&uP3<xL9-rT5v", "Xk9vR2mLq7Tb4WnZ8pYc3Hs6"
	dir := t.TempDir()
	answer := `{"verdict":"request_changes","score":4,"tags":["secret"],` +
		`"summary":"deploy.go holds client_secret=\"Xk9vR2mLq7Tb4WnZ8pYc3Hs6\"",` +
		`"findings":[{"severity":"blocker","file":"deploy.go","line":3,"msg":"the password Zq8\u0026uP3\u003cxL9-rT5v is written in the code",` +
		`"fix_hint":"read client_secret=\"Xk9vR2mLq7Tb4WnZ8pYc3Hs6\" from the environment"}]}`
	if err := os.WriteFile(filepath.Join(dir, "answer.json"), []byte(answer+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &ReviewerAgent{
		Runner: &agent.Runner{},
		Agent: agent.Preset{Name: "rev", Binary: "sh", Args: []string{"-c", "cat >/dev/null; cat answer.json"},
			PromptVia: agent.PromptStdin, Format: agent.FormatText, Env: map[string]string{"DEPLOY_PASSWORD": pw}},
		Timeout: time.Minute, MaxRounds: 1,
	}
	v, err := r.Review(t.Context(), loop.ReviewRequest{Iteration: 1, Task: "deploy", IterDir: dir, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Findings) != 1 || v.Verdict != "request_changes" {
		t.Fatalf("review = %+v", v)
	}
	f := v.Findings[0]
	for what, s := range map[string]string{"summary": v.Summary, "msg": f.Message, "fix hint": f.FixHint} {
		if strings.Contains(s, pw) || strings.Contains(s, oauth) || !strings.Contains(s, "[REDACTED") {
			t.Errorf("%s: %q", what, s)
		}
	}
}

// The reviewer is given the failures outside the task as findings of their
// gate, found by their keys among the failures there before the run; a key
// that none has, or a new failure's, gives none.
func TestOutsideTaskByGate(t *testing.T) {
	t.Parallel()
	remote := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestRemote"}
	old := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestOld"}
	sub := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestSub"}
	gates := []evidence.GateResult{
		{Name: "unit", Findings: []evidence.Finding{sub}, Preexisting: []evidence.Finding{remote, old}},
		{Name: "lint", Passed: true},
	}
	got := outsideTask(gates, []string{"TEST|go|calc.TestRemote", "TEST|go|calc.TestSub"})
	if want := map[string][]evidence.Finding{"unit": {remote}}; !reflect.DeepEqual(got, want) {
		t.Errorf("outside the task %v, want %v", got, want)
	}
	if got := outsideTask(gates, nil); got != nil {
		t.Errorf("no keys: %v, want none", got)
	}
}
