//go:build temporal

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalRunDetachThenFollow: on a real dev server and worker, `run
// --detach` starts each run and returns at once, naming the command that
// follows it, without following it (no iteration shown, exit 0 whatever the
// run comes to: green's agent waits for the test meanwhile); `follow NAME`
// shows the run's events from its start, follows green while it runs, and
// exits with each run's outcome: 0 for the run that succeeds, 4 for the one
// that escalates, with what to do next. The follower sends the notifications
// of what happens while it follows (green's end), not those before it
// (stuck's needs-you); run --detach with a receiver says that nothing sends
// them until then. Following a name the server has no run of is an error
// naming it.
func TestTemporalRunDetachThenFollow(t *testing.T) {
	testenv.NeedTool(t, "git")
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	plan := "[*]\nwrite notes.txt looked around\n"
	goOn := filepath.Join(aux, "go-on")
	fakeProcedures(t, repo, aux, map[string]string{"green": "[*]\nwaitfor " + goOn + "\nwrite notes.txt looked around\n", "stuck": plan}, nil, map[string]string{
		"green": "    limits: {max_iterations: 2}\n",
		"stuck": "    gates: [{name: fixed, run: \"test -f fixed.txt\"}]\n    limits: {max_iterations: 1}\n",
	})
	graphRepo(t, repo, "tasks: []\n")
	run := cliOn(t, addr, repo)
	url, got := signedHooks(t)
	for _, name := range []string{"green", "stuck"} {
		stdout, stderr, err := run("run", name, "--engine", "temporal", "--detach", "--notify", url)
		if err != nil {
			t.Fatalf("run %s --detach: %v\n%s\n%s", name, err, stdout, stderr)
		}
		out := stdout + stderr
		for _, want := range []string{"Run " + name + " (", "started on Temporal", "Follow it with: agentloop follow " + name + " --engine temporal"} {
			if !strings.Contains(out, want) {
				t.Errorf("run %s --detach said no %q:\n%s", name, want, out)
			}
		}
		if strings.Contains(out, "Iteration ") || strings.Contains(out, "Finished") {
			t.Errorf("run %s --detach followed the run:\n%s", name, out)
		}
		if !strings.Contains(out, "Its notifications are sent by the command following it") {
			t.Errorf("run %s --detach --notify did not say that nothing sends its notifications until it is followed:\n%s", name, out)
		}
	}
	following := inBackground(run, "follow", "green", "--engine", "temporal", "--notify", url)
	select {
	case r := <-following:
		t.Fatalf("follow green ended while its agent waited: %v\n%s\n%s", r.err, r.stdout, r.stderr)
	case <-time.After(2 * time.Second):
	}
	if err := os.WriteFile(goOn, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := ended(t, following, 2*time.Minute, "follow green")
	if ExitCode(r.err) != ExitOK {
		t.Errorf("follow green: exit %d (%v), want 0\n%s\n%s", ExitCode(r.err), r.err, r.stdout, r.stderr)
	}
	for _, want := range []string{"Starting procedure: green", "Iteration 1/2", "Finished: succeeded"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("follow green showed no %q:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
	// stuck is followed once it waits for a person: its needs-you was
	// recorded before any follower, whose to send it was none's. (One that
	// escalates while followed is the follower's to tell, as it should.)
	c := dialTest(t, addr)
	waitFor(t, "stuck to wait for a person", func() bool {
		v, _, err := temporal.Find(t.Context(), c, "stuck", repoID(repo))
		return err == nil && v.Waiting
	})
	stdout, stderr, err := run("follow", "stuck", "--engine", "temporal", "--notify", url)
	if ExitCode(err) != ExitEscalated {
		t.Errorf("follow stuck: exit %d (%v), want %d\n%s\n%s", ExitCode(err), err, ExitEscalated, stdout, stderr)
	}
	for _, want := range []string{"Starting procedure: stuck", "Iteration 1/1", "The loop needs you: agentloop report stuck --engine temporal"} {
		if !strings.Contains(stdout+stderr, want) {
			t.Errorf("follow stuck showed no %q:\n%s\n%s", want, stdout, stderr)
		}
	}
	// green's end was told by its follower; stuck waited before it was
	// followed: its needs-you was a follower's to send then, and none was.
	time.Sleep(500 * time.Millisecond) // a late one would come now
	var seen []string
	for _, h := range got() {
		seen = append(seen, h.Run.Name+" "+h.Type+" "+h.Status)
	}
	if want := []string{"green finished succeeded"}; strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("notifications %q, want %q", seen, want)
	}
	stdout, stderr, err = run("follow", "nosuch", "--engine", "temporal")
	if ExitCode(err) == ExitOK || !strings.Contains(err.Error()+stdout+stderr, "nosuch") {
		t.Errorf("follow of a run the server does not have: exit %d (%v), want an error naming it\n%s\n%s", ExitCode(err), err, stdout, stderr)
	}
}
