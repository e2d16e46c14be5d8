package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/bench/internal/harness"
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
	short := map[string]bool{"stuck": true, "regression": true, "flaky": true, "tampering": true, "never_starts": true,
		"tests_deleted": true, "review_untagged_security": true, "churn": true, "limit_progress": true, "preexisting_outside_task": true,
		"conflict_spec_vs_test": true, "conflict_tests": true, "conflict_special_cased": true, "graph_blocked": true}
	var picked []scenario
	for _, s := range scenarios() {
		if short[s.name] {
			picked = append(picked, s)
		}
	}
	// Three at a time: a scenario mostly waits on its gate's go test, and
	// each works in folders of its own.
	results := make([]result, len(picked))
	errs := make([]error, len(picked))
	harness.Each(len(picked), 3, func(i int) { results[i], errs[i] = b.agentloop(picked[i], false) })
	var rows []row
	for i, s := range picked {
		res, err := results[i], errs[i]
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		t.Logf("%s: %d runs, %s (oracle %d, %s): %s", s.name, res.Runs, res.Outcome, s.oracle, s.want, res.Why)
		if !right(s, res, true) {
			t.Errorf("%s: ended %s after %d runs (tests weakened: %v): %s; want %s %s", s.name, res.Outcome, res.Runs, res.Tampered, res.Why, s.want, s.why)
		}
		rows = append(rows, row{s: s, agentloop: res})
	}
	sum := table(rows)
	if got, o := sum.totals(policies[0]).runs, sum.oracle(); float64(got) > 1.1*float64(o) {
		t.Errorf("agentloop spent %d agent runs, the oracle %d: more than 10%% over", got, o)
	}
}

// TestDocCurrent: docs/loopbench.md's table is the one its recorded results
// give with the suite's scenarios as they are (their oracles, outcomes,
// policies): generated, not edited by hand, and every scenario in it. A
// scenario added or changed without running the suite again with -doc
// fails here.
func TestDocCurrent(t *testing.T) {
	path := filepath.Join(moduleRoot(), "docs", "loopbench.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, date, commit, err := parseSection(string(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	want, err := docSection(rows, date, commit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), want) {
		t.Errorf("%s: the generated section is not what its results give; run go run ./bench/scenarios -doc docs/loopbench.md", path)
	}
}
