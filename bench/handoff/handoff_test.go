package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

// TestCampaign is the short hand-off campaign: a few runs and a graph driven
// through random hand-offs and signals, with every check of the full one. Its
// sequences are drawn from seed 1, or from $AGENTLOOP_CAMPAIGN_SEED.
func TestCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("the hand-off campaign builds agentloop and runs it many times")
	}
	needGit(t)
	seed, err := harness.Seed(os.Getenv, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newCampaign(seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rep := c.runs(t.Context(), 4, 2)
	g := c.graphs(t.Context(), 1, 1)
	t.Logf("seed %d (%s=N draws others), first signal window %s\nruns: %sgraphs: %s", seed, harness.SeedEnv, c.window.Round(time.Millisecond), rep, g)
	if rep.Anomalies+g.Anomalies > 0 {
		t.Errorf("anomalies:\nruns: %sgraphs: %s", rep, g)
	}
	if rep.Commands["run"] == 0 || g.Commands["graph"] == 0 || g.Merges != 4 {
		t.Errorf("the campaign did not drive what it should: runs %v, graphs %v, %d tasks merged", rep.Commands, g.Commands, g.Merges)
	}
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; CI needs it")
		}
		t.Skip("git is not installed")
	}
}

// TestCheckFiles shows the run folder check failing on each change it must
// catch, and passing on the changes a run makes.
func TestCheckFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, ".agentloop", "runs", "build", "r1")
	write := func(rel, body string, flag int) {
		t.Helper()
		path := filepath.Join(run, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, flag|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(body); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	for rel, body := range map[string]string{"events.jsonl": "{}\n", "history.jsonl": "{}\n", "iter-001/prompt.md": "do it", "iter-001/agent.log": "a\n", "iter-001/decision.yaml": "x", "inflight.json": "{}"} {
		write(rel, body, 0)
	}
	var rep Report
	w := newWatch(nil, dir, "build", "test", &rep)
	w.checkFiles()
	if len(rep.Problems) > 0 {
		t.Fatalf("first look: %v", rep.Problems)
	}
	// What a run does: logs appended to, new files, the marker written over and removed.
	write("events.jsonl", "{}\n", os.O_APPEND)
	write("history.jsonl", "{}\n", os.O_APPEND)
	write("iter-001/agent.log", "b\n", os.O_APPEND)
	write("iter-002/prompt.md", "again", 0)
	write("inflight.json", `{"seq":2}`, os.O_TRUNC)
	w.checkFiles()
	_ = os.Remove(filepath.Join(run, "inflight.json"))
	w.checkFiles()
	if len(rep.Problems) > 0 {
		t.Fatalf("a run's own changes: %v", rep.Problems)
	}
	// What it must never do.
	write("iter-001/prompt.md", "DO it", 0)                    // written over
	write("iter-001/decision.yaml", "xy", os.O_APPEND)         // grew, not a log
	write("events.jsonl", "{}", os.O_TRUNC)                    // shrank
	_ = os.Remove(filepath.Join(run, "iter-002", "prompt.md")) // removed
	w.checkFiles()
	want := []string{"prompt.md was written over", "decision.yaml grew", "events.jsonl shrank", "iter-002/prompt.md was removed"}
	got := strings.Join(rep.Problems, "\n")
	for _, s := range want {
		if !strings.Contains(got, s) {
			t.Errorf("no problem says %q; got:\n%s", s, got)
		}
	}
	if len(rep.Problems) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(rep.Problems), len(want), got)
	}
}

// TestCheckAttempts shows the attempt check failing on an attempt recorded
// twice, one missing, a stray folder and spend that is not its agent.log's.
func TestCheckAttempts(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := t.TempDir()
	if err := harness.WriteRepo(dir, map[string]string{"README.md": "x\n"}); err != nil {
		t.Fatal(err)
	}
	run := runDir(dir, "build", "r1")
	for _, f := range []struct{ rel, body string }{
		{"iter-001/agent.log", usageLine + "\n" + resultLine + "\n"},
		{"iter-002/agent.log", usageLine + "\n"},
		{"iter-003/agent.log", ""},
		{"history.jsonl", `{"kind":"record","i":1,"data":{"seq":1,"usage":{"input_tokens":1000,"output_tokens":10,"cost_usd":0.01}}}` + "\n" +
			fmt.Sprintf(`{"kind":"cut","i":1,"data":{"seq":2,"usage":{"input_tokens":1000,"output_tokens":10,"cost_usd":%v}}}`, partialCost) + "\n" +
			`{"kind":"cut","i":2,"data":{"seq":3,"usage":{}}}` + "\n"},
	} {
		path := filepath.Join(run, f.rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := harness.State{RunID: "r1", Attempts: 3}
	st.Logged.History, st.Logged.Interrupted = 1, 2
	st.Spend.Usage = harness.Usage{In: 2000, Out: 20, Cost: 0.01 + partialCost}
	check := func(st harness.State, killed bool) string {
		var rep Report
		w := newWatch(nil, dir, "build", "test", &rep)
		w.traced["refs/agentloop/build/r1/1"] = true // no checkpoints in this test
		w.checkAttempts("build", st, killed)
		return strings.Join(rep.Problems, "\n")
	}
	if got := check(st, false); got != "" {
		t.Fatalf("a whole history: %s", got)
	}
	cases := []struct {
		name   string
		change func(st *harness.State)
		want   string
	}{
		{"an attempt the history lacks", func(st *harness.State) { st.Attempts = 4 }, "attempt 4 is recorded 0 times"},
		{"spend not the attempts' sum", func(st *harness.State) { st.Spend.Usage.In = 3000 }, "the run's spend is 3000+20 tokens"},
		{"a record the state counts missing", func(st *harness.State) { st.Logged.History = 2 }, "lacks record 2"},
	}
	for _, tc := range cases {
		s := st
		tc.change(&s)
		if got := check(s, false); !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// A folder beyond the attempts is the one a kill cut, and nothing more.
	if err := os.MkdirAll(filepath.Join(run, "iter-004"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := check(st, true); got != "" {
		t.Errorf("after a kill, the cut attempt's folder: %s", got)
	}
	if got := check(st, false); !strings.Contains(got, "folder iter-004 beyond") {
		t.Errorf("a folder beyond the attempts: %q", got)
	}
	if err := os.Rename(filepath.Join(run, "iter-004"), filepath.Join(run, "iter-003.retry-1")); err != nil {
		t.Fatal(err)
	}
	if got := check(st, true); !strings.Contains(got, "unexpected iter-003.retry-1") {
		t.Errorf("a folder moved aside: %q", got)
	}
	// Spend that is not what the attempt's agent.log tells.
	if err := os.WriteFile(filepath.Join(run, "iter-003", "agent.log"), []byte(usageLine+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := check(st, false); !strings.Contains(got, "attempt 3 counts 0+0 tokens $0.0000, its agent.log tells 1000+10 tokens $0.0032") {
		t.Errorf("an attempt's transcript not counted: %q", got)
	}
}
