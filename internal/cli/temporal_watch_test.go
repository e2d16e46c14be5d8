//go:build temporal

package cli

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalWatchRealServer: on a real dev server, `watch --once --engine
// temporal` shows a row for each run of the repository on the server, with its
// status and iteration, and the needs-you entry of the run that escalated,
// with its question and the answer commands naming the engine; a run whose
// agent is at work is in the phase its step's heartbeat told.
func TestTemporalWatchRealServer(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	plan := "[*]\nwrite notes.txt looked around\n"
	gate := filepath.Join(t.TempDir(), "go")
	fakeProcedures(t, repo, aux, map[string]string{"green": plan, "stuck": plan, "busy": "[*]\nwaitfor " + gate + "\n"}, nil, map[string]string{
		"green": "    limits: {max_iterations: 2}\n",
		"stuck": "    gates: [{name: fixed, run: \"test -f fixed.txt\"}]\n    limits: {max_iterations: 1}\n",
		"busy":  "    limits: {max_iterations: 1}\n",
	})
	graphRepo(t, repo, "tasks: []\n")
	run := cliOn(t, addr, repo)
	if stdout, stderr, err := run("run", "green", "--engine", "temporal"); err != nil {
		t.Fatalf("run green: %v\n%s\n%s", err, stdout, stderr)
	}
	if stdout, stderr, err := run("run", "stuck", "--engine", "temporal"); ExitCode(err) != ExitEscalated {
		t.Fatalf("run stuck: exit %d (%v), want %d\n%s\n%s", ExitCode(err), err, ExitEscalated, stdout, stderr)
	}
	busy := make(chan error, 1)
	go func() {
		_, _, err := run("run", "busy", "--engine", "temporal", "--heartbeat-timeout", "3s")
		busy <- err
	}()
	var stdout string
	atWork := regexp.MustCompile(`(?m)^busy +running +1/1 +agent `)
	waitFor(t, "watch to show the busy run's agent at work", func() bool {
		out, stderr, err := run("watch", "--once", "--engine", "temporal")
		if err != nil {
			t.Fatalf("watch --once --engine temporal: %v\n%s\n%s", err, out, stderr)
		}
		stdout = out
		return atWork.MatchString(out)
	})
	writeFile(t, gate, "")
	if err := <-busy; err != nil {
		t.Errorf("run busy: %v", err)
	}
	for _, want := range []string{
		`(?m)^green +succeeded +1/2 `,
		`(?m)^stuck +escalated +1/1 +waiting for you `,
		`(?m)^stuck — escalated, .*on Temporal\n(.*\n)*  Question: What does the agent miss`,
		`agentloop resume stuck --guidance "\.\.\." --engine temporal`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("watch --once --engine temporal: no match for %s\n%s", want, stdout)
		}
	}
}
