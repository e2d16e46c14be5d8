package main

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

// TestCampaign is the short crash campaign: a few runs and a task graph
// killed at random moments and resumed until they end, with the shared
// ledger and every check of the full one. Its seed is in its log; set
// $AGENTLOOP_CAMPAIGN_SEED to it to draw the same kill moments again.
func TestCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash campaign builds agentloop and kills it many times")
	}
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; CI needs it")
		}
		t.Skip("git is not installed")
	}
	seed, err := harness.Seed(os.Getenv, uint64(time.Now().UnixNano()))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d (to draw the same kills again: %s=%d go test ./bench/crash -run TestCampaign)", seed, harness.SeedEnv, seed)
	c, err := newCampaign(seed, 3, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rep := c.run(t.Context(), 3, 1)
	t.Log(rep)
	if rep.Anomalies > 0 {
		t.Errorf("anomalies:\n%s", rep)
	}
	if rep.Sessions == rep.Runs {
		t.Log("no session was killed: the campaign proved little this time")
	}
	g := c.graphs(t.Context(), 1, 1)
	t.Log("graphs: ", g)
	if g.Anomalies > 0 {
		t.Errorf("graph anomalies:\n%s", g)
	}
}

// TestWorkDone: the check of a run's work after kills and resumes, which
// keep in the tree what each cut attempt had written.
func TestWorkDone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		work                 string
		iterations, attempts int
		ok                   bool
	}{
		{"x\ny\nx\ny\n", 2, 2, true},
		{"x\ny\nx\ny\n", 2, 0, true},
		{"x\ny\nx\nx\ny\n", 2, 3, true},           // a cut attempt's x kept
		{"x\ny\nx\ny\nx\ny\n", 2, 3, true},        // a cut attempt that wrote it all
		{"x\ny\nx\ny\nx\ny\n", 2, 2, false},       // done twice, none cut
		{"x\ny\nx\ny\nx\ny\nx\ny\n", 2, 3, false}, // more attempts' work than attempts
		{"x\ny\n", 2, 3, false},                   // an iteration's work lost
		{"x\ny\ny\n", 1, 1, false},                // y without its x
		{"x\ny\nx", 1, 2, false},                  // a line cut short
		{"", 0, 0, true},
	} {
		if why := workDone(c.work, c.iterations, c.attempts); (why == "") != c.ok {
			t.Errorf("workDone(%q, %d, %d) = %q, want ok %v", c.work, c.iterations, c.attempts, why, c.ok)
		}
	}
}
