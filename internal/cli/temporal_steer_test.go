//go:build temporal

package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalSteerRealServer: on a real dev server, `guide` sent while a
// run's first iteration runs reaches its second prompt and is acknowledged in
// its events, status and report; `stop` ends a run when its current iteration ends,
// and `stop --now` at once, its hanging agent stopped on the worker; each
// run's follower exits 130 then, as after a local stop.
func TestTemporalSteerRealServer(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	in, goAhead, wait := held(aux)
	plans := map[string]string{
		"guided":  wait("guided") + "[*]\nexpect-prompt use the v2 API\nwrite guided.fixed done\n",
		"stopped": wait("stopped") + "[*]\nprint going on\n",
		"cut":     "[*]\nwrite " + in("cut") + " started\nhang\n",
	}
	// Each run's gate fails until its own file is there (the runs share the
	// work tree).
	extra := map[string]string{}
	for name := range plans {
		extra[name] = "    gates: [{name: fixed, run: \"test -f " + name + ".fixed\"}]\n    limits: {max_iterations: 5, failure_threshold: 5}\n"
	}
	fakeProcedures(t, repo, aux, plans, nil, extra)
	graphRepo(t, repo, "tasks: []\n")
	run := cliOn(t, addr, repo)
	server := []string{"--engine", "temporal"}
	start := func(name string) <-chan said {
		done := inBackground(run, append([]string{"run", name}, server...)...)
		awaitFile(t, in(name), 60*time.Second)
		return done
	}
	finished := func(name string, done <-chan said) said { return ended(t, done, 90*time.Second, "run "+name) }

	// guide: the second iteration's prompt carries the guidance.
	done := start("guided")
	stdout, _, err := run(append([]string{"guide", "guided", "use the v2 API"}, server...)...)
	if err != nil || !strings.Contains(stdout, "Guidance queued for guided on Temporal (in iteration 1)") {
		t.Fatalf("guide: %v\n%s", err, stdout)
	}
	writeFile(t, goAhead("guided"), "")
	if r := finished("guided", done); r.err != nil || !strings.Contains(r.stderr, "Guidance applied in iteration 2") {
		t.Errorf("run guided: %v, want succeeded with the guidance acknowledged\n%s\n%s", r.err, r.stdout, r.stderr)
	}
	stdout, _, err = run(append([]string{"status", "guided"}, server...)...)
	if err != nil || !strings.Contains(stdout, "Guidance applied in iteration 2") || !strings.Contains(stdout, "succeeded") {
		t.Errorf("status guided: %v\n%s", err, stdout)
	}
	stdout, _, err = run(append([]string{"report", "guided"}, server...)...)
	if err != nil || !strings.Contains(stdout, "## Guidance") || !strings.Contains(stdout, "| while it ran | segment 1, iteration 2 | use the v2 API |") {
		t.Errorf("report guided: %v, want its guidance acknowledged\n%s", err, stdout)
	}
	if _, _, err := run(append([]string{"guide", "guided", "more"}, server...)...); ExitCode(err) != ExitUsage {
		t.Errorf("guide of an ended run: %v, want a usage error", err)
	}

	// stop: the run ends when its iteration ends.
	done = start("stopped")
	stdout, _, err = run(append([]string{"stop", "stopped"}, server...)...)
	if err != nil || !strings.Contains(stdout, "stopped stops when iteration 1 ends") {
		t.Fatalf("stop: %v\n%s", err, stdout)
	}
	writeFile(t, goAhead("stopped"), "")
	if r := finished("stopped", done); ExitCode(r.err) != ExitInterrupted || !strings.Contains(r.stderr, "stopped after iteration 1 (agentloop stop)") {
		t.Errorf("run stopped: exit %d (%v), want %d, stopped after iteration 1\n%s\n%s", ExitCode(r.err), r.err, ExitInterrupted, r.stdout, r.stderr)
	}

	// stop --now: the workflow is cancelled, its hanging agent stopped.
	done = start("cut")
	stdout, _, err = run(append([]string{"stop", "cut", "--now"}, server...)...)
	if err != nil || !strings.Contains(stdout, "Interrupted cut on Temporal") {
		t.Fatalf("stop --now: %v\n%s", err, stdout)
	}
	if r := finished("cut", done); ExitCode(r.err) != ExitInterrupted {
		t.Errorf("run cut: exit %d (%v), want %d\n%s\n%s", ExitCode(r.err), r.err, ExitInterrupted, r.stdout, r.stderr)
	}
	stdout, _, err = run(append([]string{"status", "cut"}, server...)...)
	if err != nil || !strings.Contains(stdout, "interrupted") {
		t.Errorf("status cut: %v\n%s", err, stdout)
	}
	if _, _, err := run(append([]string{"stop", "cut"}, server...)...); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("stop of an ended run: %v, want refused as not running", err)
	}
}
