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
