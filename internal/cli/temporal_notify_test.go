//go:build temporal

package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/testenv"
)

// TestTemporalNotifyRealServer: the follower of a Temporal run sends its
// notifications to a webhook on 127.0.0.1, signed, of schema version 1, each
// once: a run that succeeds is told finished, one that escalates needs_you
// (its end as escalated is not told apart), and a resume that follows the run
// again sends nothing twice.
func TestTemporalNotifyRealServer(t *testing.T) {
	testenv.NeedTool(t, "git")
	const secret = "hook-secret-0123456789"
	t.Setenv(notify.DefaultSecretEnv, secret)
	type hook struct {
		Type   string `json:"type"`
		V      int    `json:"v"`
		ID     string `json:"id"`
		Status string `json:"status"`
		Run    struct {
			Name   string `json:"name"`
			Engine string `json:"engine"`
		} `json:"run"`
	}
	var mu sync.Mutex
	var got []hook
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var h hook
		if err := json.Unmarshal(b, &h); err != nil || r.Header.Get(notify.HeaderSignature) != notify.Sign([]byte(secret), b) {
			t.Errorf("webhook body %s (%v), signature %q", b, err, r.Header.Get(notify.HeaderSignature))
		}
		mu.Lock()
		got = append(got, h)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	addr := testenv.TemporalServer(t)
	repo, aux := t.TempDir(), t.TempDir()
	plan := "[*]\nwrite notes.txt looked around\n"
	fakeProcedures(t, repo, aux, map[string]string{"green": plan, "stuck": plan}, nil, map[string]string{
		"green": "    limits: {max_iterations: 2}\n",
		"stuck": "    gates: [{name: fixed, run: \"test -f fixed.txt\"}]\n    limits: {max_iterations: 1}\n",
	})
	graphRepo(t, repo, "tasks: []\n")
	run := cliOn(t, addr, repo)
	flags := []string{"--engine", "temporal", "--notify", srv.URL + "/hook"}

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
	time.Sleep(500 * time.Millisecond) // a late duplicate would come now

	mu.Lock()
	defer mu.Unlock()
	var seen []string
	for _, h := range got {
		if h.V != 1 || h.Run.Engine != "temporal" || h.ID == "" {
			t.Errorf("notification %+v: want schema 1, engine temporal, an ID", h)
		}
		seen = append(seen, h.Run.Name+" "+h.Type+" "+h.Status)
	}
	want := []string{"green finished succeeded", "stuck needs_you "}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("notifications %q, want %q, each once", seen, want)
	}
}
