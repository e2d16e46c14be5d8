package main

import (
	"os"
	"os/exec"
	"testing"
)

// TestScenarios is the short suite: a few scenarios under agentloop alone,
// through the real binary, the scripted agent and the real go test. Each must
// end the right way, and the agent runs spent must stay within 10% of the
// oracle's. `go run ./bench/scenarios` runs them all, with the naive policies.
func TestScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agentloop and runs go test in scratch repositories")
	}
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed; CI needs it", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	b, err := newBench()
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	short := map[string]bool{"stuck": true, "regression": true, "flaky": true, "tampering": true, "never_starts": true}
	var rows []row
	for _, s := range scenarios() {
		if !short[s.name] {
			continue
		}
		res, why, err := b.agentloop(s, false)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		t.Logf("%s: %d runs, %s (oracle %d, %s): %s", s.name, res.runs, res.outcome, s.oracle, s.want, why)
		if !right(s, res, true) {
			t.Errorf("%s: ended %s after %d runs (tests weakened: %v), want %s", s.name, res.outcome, res.runs, res.tampered, s.want)
		}
		rows = append(rows, row{s: s, agentloop: res})
	}
	sum := table(rows)
	if got, o := sum.totals(policies[0].pick, true).runs, sum.oracle(); float64(got) > 1.1*float64(o) {
		t.Errorf("agentloop spent %d agent runs, the oracle %d: more than 10%% over", got, o)
	}
}
