//go:build temporal

package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalNotifyRealServer: the follower of a Temporal run sends its
// notifications to a webhook on 127.0.0.1, signed, of schema version 1, each
// once: a run that succeeds is told finished, one that escalates needs_you
// (its end as escalated is not told apart), a resume that follows the run
// again sends nothing twice, and one that answers it with guidance tells how
// it then ends.
func TestTemporalNotifyRealServer(t *testing.T) {
	testenv.NeedTool(t, "git")
	url, got := signedHooks(t)
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	plan := "[*]\nwrite notes.txt looked around\n"
	fixes := "[1]\nwrite notes.txt looked around\n[*]\nwrite fixed.txt fixed\n"
	fakeProcedures(t, repo, aux, map[string]string{"green": plan, "stuck": plan, "answered": fixes}, nil, map[string]string{
		"green":    "    limits: {max_iterations: 2}\n",
		"stuck":    "    gates: [{name: fixed, run: \"test -f fixed.txt\"}]\n    limits: {max_iterations: 1}\n",
		"answered": "    gates: [{name: fixed, run: \"test -f fixed.txt\"}]\n    limits: {max_iterations: 1}\n",
	})
	graphRepo(t, repo, "tasks: []\n")
	run := cliOn(t, addr, repo)
	flags := []string{"--engine", "temporal", "--notify", url}

	stdout, stderr, err := run(append([]string{"run", "green"}, flags...)...)
	if err != nil {
		t.Fatalf("run green: %v\n%s\n%s", err, stdout, stderr)
	}
	stdout, stderr, err = run(append([]string{"run", "stuck"}, flags...)...)
	if ExitCode(err) != ExitEscalated {
		t.Fatalf("run stuck: exit %d (%v), want %d\n%s\n%s", ExitCode(err), err, ExitEscalated, stdout, stderr)
	}
	// The answer ends it aborted: that follower has no notifier (resume of a
	// waiting run), and the first one's notifications are not sent again.
	if _, _, err := run("resume", "stuck", "--abort", "--engine", "temporal"); err != nil {
		t.Fatalf("resume --abort: %v", err)
	}
	// Answered with guidance, a run goes on: the follower of the resume tells
	// how it ends (--notify is not recorded: given again), and nothing told
	// before again.
	stdout, stderr, err = run(append([]string{"run", "answered"}, flags...)...)
	if ExitCode(err) != ExitEscalated {
		t.Fatalf("run answered: exit %d (%v), want %d\n%s\n%s", ExitCode(err), err, ExitEscalated, stdout, stderr)
	}
	stdout, stderr, err = run(append([]string{"resume", "answered", "--guidance", "write fixed.txt"}, flags...)...)
	if err != nil {
		t.Fatalf("resume answered --guidance: %v\n%s\n%s", err, stdout, stderr)
	}
	time.Sleep(500 * time.Millisecond) // a late duplicate would come now

	var seen []string
	for _, h := range got() {
		if h.V != 1 || h.Run.Engine != "temporal" || h.ID == "" {
			t.Errorf("notification %+v: want schema 1, engine temporal, an ID", h)
		}
		seen = append(seen, h.Run.Name+" "+h.Type+" "+h.Status)
	}
	want := []string{"green finished succeeded", "stuck needs_you ", "answered needs_you ", "answered finished succeeded"}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("notifications %q, want %q, each once", seen, want)
	}
}

// TestTemporalGraphNotifyRealServer: the follower of a Temporal graph sends
// the notifications a local graph sends, each once: a task that ends is told
// finished, one that escalates needs_you; the follower of the answer tells
// how that task ends and the graph's end (graph_finished), nothing told
// before again.
func TestTemporalGraphNotifyRealServer(t *testing.T) {
	testenv.NeedTool(t, "git")
	url, got := signedHooks(t)
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	fakeProcedures(t, repo, aux, map[string]string{
		"green": "write a.txt a\n",
		"stuck": "[1]\nprint nothing to do\n[*]\nwrite b.txt b\n",
	}, nil, map[string]string{"stuck": "    gates: [{name: done, run: \"test -f b.txt\"}]\n    limits: {max_iterations: 1}\n"})
	graphRepo(t, repo, `parallel: 2
tasks:
  - {id: a, title: Write a.txt, procedure: green}
  - {id: b, title: Write b.txt, procedure: stuck}
`)
	run := cliOn(t, addr, repo)
	seen := func() []string {
		time.Sleep(500 * time.Millisecond) // a late duplicate would come now
		var s []string
		for _, h := range got() {
			if h.V != 1 || h.ID == "" {
				t.Errorf("notification %+v: want schema 1, an ID", h)
			}
			if h.Type == "graph_finished" {
				s = append(s, h.Graph.Name+" "+h.Type+" "+h.Status)
				continue
			}
			if h.Run.Engine != "temporal" {
				t.Errorf("notification %+v: want engine temporal", h)
			}
			s = append(s, h.Run.Name+" "+h.Type+" "+h.Status)
		}
		slices.Sort(s) // the tasks run in parallel
		return s
	}

	stdout, stderr, err := run("run", "--tasks", "tasks.yaml", "--engine", "temporal", "--notify", url)
	if ExitCode(err) != ExitEscalated {
		t.Fatalf("run --tasks: exit %d (%v), want %d\n%s\n%s", ExitCode(err), err, ExitEscalated, stdout, stderr)
	}
	want := []string{"tasks-a finished succeeded", "tasks-b needs_you "}
	if s := seen(); !slices.Equal(s, want) {
		t.Errorf("notifications of run --tasks %q, want %q, each once", s, want)
	}
	stdout, stderr, err = run("resume", "tasks-b", "--guidance", "write b.txt", "--engine", "temporal", "--notify", url)
	if ExitCode(err) != ExitOK {
		t.Fatalf("resume --guidance: %v\n%s\n%s", err, stdout, stderr)
	}
	want = append(want, "tasks graph_finished succeeded", "tasks-b finished succeeded")
	slices.Sort(want)
	if s := seen(); !slices.Equal(s, want) {
		t.Errorf("notifications after the answer %q, want %q, each once", s, want)
	}
}

// hookBody is what the tests read of a notification's JSON.
type hookBody struct {
	Type   string `json:"type"`
	V      int    `json:"v"`
	ID     string `json:"id"`
	Status string `json:"status"`
	WaitMS int64  `json:"wait_ms"`
	Run    struct {
		Name   string `json:"name"`
		Engine string `json:"engine"`
	} `json:"run"`
	Graph struct {
		Name string `json:"name"`
	} `json:"graph"`
}

// signedHooks is a generic webhook on 127.0.0.1 whose secret is the test's
// webhook secret (set in its environment): each body's signature is checked;
// got is what came, in order.
func signedHooks(t *testing.T) (url string, got func() []hookBody) {
	t.Helper()
	const secret = "hook-secret-0123456789"
	t.Setenv(target.DefaultSecretEnv, secret)
	var mu sync.Mutex
	var bodies []hookBody
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var h hookBody
		if err := json.Unmarshal(b, &h); err != nil || r.Header.Get(notify.HeaderSignature) != notify.Sign([]byte(secret), b) {
			t.Errorf("webhook body %s (%v), signature %q", b, err, r.Header.Get(notify.HeaderSignature))
		}
		mu.Lock()
		bodies = append(bodies, h)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/hook", func() []hookBody {
		mu.Lock()
		defer mu.Unlock()
		return append([]hookBody(nil), bodies...)
	}
}
