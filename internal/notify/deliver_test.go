package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/state"
)

// recorder keeps the delivery events, as a run's events.jsonl does.
type recorder struct {
	mu     sync.Mutex
	events []state.Event
}

func (r *recorder) record(ev state.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) all() []state.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]state.Event(nil), r.events...)
}

// one returns the only delivery event, failing the test when there is not one.
func (r *recorder) one(t *testing.T) state.EventData {
	t.Helper()
	evs := r.all()
	if len(evs) != 1 {
		t.Fatalf("%d delivery events, want 1: %+v", len(evs), evs)
	}
	return evs[0].Data
}

// notifier is a notifier of c with quick retries, whose variables are env.
func notifier(t *testing.T, c target.Config, env map[string]string) *Notifier {
	t.Helper()
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	n, err := New(t.Context(), c, Options{
		Getenv: func(k string) string { return env[k] }, Environ: environ,
		Backoff: func(int) time.Duration { return 10 * time.Millisecond },
	})
	if err != nil || n == nil {
		t.Fatalf("New() = %v, %v", n, err)
	}
	return n
}

// drain waits for every delivery of n.
func drain(t *testing.T, n *Notifier) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	n.Close(ctx)
}

func needsYou() Notification {
	n, _ := Of(Run{Name: "build", ID: "r1", Engine: "local"}, state.Event{Time: at, Iteration: 3, Data: state.NeedsYou{NeedsYou: decision.NeedsYou{
		Kind: decision.NeedsEscalated, Run: "build", Question: "Which test is right?",
		Options: []decision.Answer{{Label: "Guide it", Command: `agentloop resume build --guidance "..."`}},
	}}}, Rules{})
	return n
}

// verify is what a receiver of the generic webhook does: check the signature
// of the body with the shared secret (computed here, not with Sign).
func verify(secret string, body []byte, header string) bool {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	want := "sha256=" + hex.EncodeToString(m.Sum(nil))
	return hmac.Equal([]byte(want), []byte(header))
}

// TestWebhookDeliversSignedVersionedBody: a receiver on 127.0.0.1 gets the
// notification's JSON, of schema version 1, with its type and ID in headers,
// signed with the secret of the environment; the delivery is an event.
func TestWebhookDeliversSignedVersionedBody(t *testing.T) {
	t.Parallel()
	const secret = "hook-secret-0123456789"
	type got struct {
		body              []byte
		sig, event, deliv string
		ctype             string
	}
	reqs := make(chan got, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reqs <- got{b, r.Header.Get("X-Agentloop-Signature-256"), r.Header.Get("X-Agentloop-Event"), r.Header.Get("X-Agentloop-Delivery"), r.Header.Get("Content-Type")}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	rec := &recorder{}
	n := notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: srv.URL + "/hook", SecretEnv: "HOOK_SECRET"}}}, map[string]string{"HOOK_SECRET": secret})
	nt := needsYou()
	n.Send(nt, rec.record)
	drain(t, n)

	r := <-reqs
	if !verify(secret, r.body, r.sig) {
		t.Errorf("signature %q does not verify the body with the secret", r.sig)
	}
	if verify("another secret", r.body, r.sig) {
		t.Error("the signature verifies with another secret")
	}
	var body struct {
		V        int    `json:"v"`
		ID       string `json:"id"`
		Type     string `json:"type"`
		Title    string `json:"title"`
		Time     time.Time
		Run      Run                `json:"run"`
		NeedsYou *decision.NeedsYou `json:"needs_you"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	if body.V != 1 || body.Type != "needs_you" || body.ID != nt.ID || body.Title != "run build needs you: it escalated" ||
		body.Run.Name != "build" || body.Run.Engine != "local" || body.NeedsYou == nil ||
		body.NeedsYou.Options[0].Command != `agentloop resume build --guidance "..."` || !body.Time.Equal(at) {
		t.Errorf("body %s", r.body)
	}
	if r.event != "needs_you" || r.deliv != nt.ID || r.ctype != "application/json" {
		t.Errorf("headers event=%q delivery=%q content-type=%q", r.event, r.deliv, r.ctype)
	}
	sent, ok := rec.one(t).(state.NotificationSent)
	host := strings.TrimPrefix(srv.URL, "http://")
	if !ok || sent.Target != "webhook "+host || sent.Attempts != 1 || sent.ID != nt.ID || sent.Notification != "needs_you" {
		t.Errorf("delivery event %+v", rec.all())
	}
}

// A webhook that names no secret variable is signed with the secret of
// AGENTLOOP_NOTIFY_SECRET; without one in the environment the body goes
// unsigned; a webhook that names a secret variable that is not set is a
// configuration error.
func TestWebhookSecret(t *testing.T) {
	t.Parallel()
	type got struct {
		body []byte
		sig  string
	}
	reqs := make(chan got, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reqs <- got{b, r.Header.Get("X-Agentloop-Signature-256")}
	}))
	defer srv.Close()
	const secret = "default-secret-0123456789"
	n := notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: srv.URL}}}, map[string]string{target.DefaultSecretEnv: secret, "OTHER_SECRET": "not-this-one-0123"})
	n.Send(needsYou(), nil)
	drain(t, n)
	if r := <-reqs; !verify(secret, r.body, r.sig) {
		t.Errorf("signature %q does not verify the body with %s's secret", r.sig, target.DefaultSecretEnv)
	}
	n = notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: srv.URL}}}, nil)
	n.Send(needsYou(), nil)
	drain(t, n)
	if r := <-reqs; r.sig != "" {
		t.Errorf("signature %q without a secret", r.sig)
	}
	_, err := New(t.Context(), target.Config{Webhooks: []target.Endpoint{{URL: srv.URL, SecretEnv: "NOT_SET"}}}, Options{Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "NOT_SET (secret_env) is not set") {
		t.Errorf("New() with a secret variable not set: %v", err)
	}
	_, err = New(t.Context(), target.Config{Slack: []target.Endpoint{{URLEnv: "SLACK_URL"}}}, Options{Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "notify.slack: the variable SLACK_URL (url_env) is not set") {
		t.Errorf("New() with a URL variable not set: %v", err)
	}
}

// TestReceiverAnswering500: the receiver is tried 1 + retries times, and the
// failure is an event naming the answer and the attempts.
func TestReceiverAnswering500(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	rec := &recorder{}
	n := notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: srv.URL}}, Retries: 2}, nil)
	n.Send(needsYou(), rec.record)
	drain(t, n)
	f, ok := rec.one(t).(state.NotificationFailed)
	if !ok || f.Attempts != 3 || f.Error != "HTTP 500 Internal Server Error" || hits.Load() != 3 {
		t.Errorf("failure %+v after %d requests, want 3 attempts of HTTP 500", rec.all(), hits.Load())
	}
}

// A 404 will not change: it is not tried again. A 503 may: the next attempt
// is delivered.
func TestRetryOnlyWhatMayChange(t *testing.T) {
	t.Parallel()
	var hits404, hits503 atomic.Int32
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits404.Add(1)
		w.WriteHeader(http.StatusNotFound)
	}))
	defer gone.Close()
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if hits503.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer busy.Close()
	rec := &recorder{}
	n := notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: gone.URL}}, Slack: []target.Endpoint{{URL: busy.URL}}, Retries: 2}, nil)
	n.Send(needsYou(), rec.record)
	drain(t, n)
	var failed, sent int
	for _, ev := range rec.all() {
		switch d := ev.Data.(type) {
		case state.NotificationFailed:
			failed++
			if d.Attempts != 1 || d.Error != "HTTP 404 Not Found" {
				t.Errorf("404: %+v", d)
			}
		case state.NotificationSent:
			sent++
			if d.Attempts != 2 || !strings.HasPrefix(d.Target, "slack 127.0.0.1:") {
				t.Errorf("503 then 200: %+v", d)
			}
		}
	}
	if failed != 1 || sent != 1 || hits404.Load() != 1 || hits503.Load() != 2 {
		t.Errorf("failed %d sent %d, requests 404: %d 503: %d", failed, sent, hits404.Load(), hits503.Load())
	}
}

// TestReceiverNeverAnswering: each attempt ends at the timeout, and the
// failure says so.
func TestReceiverNeverAnswering(t *testing.T) {
	t.Parallel()
	srv, hits := silentServer(t)
	rec := &recorder{}
	n := notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: srv}}, Timeout: 100 * time.Millisecond, Retries: 1}, nil)
	n.Send(needsYou(), rec.record)
	drain(t, n)
	f, ok := rec.one(t).(state.NotificationFailed)
	// (An attempt may end before the receiver reads its request.)
	if !ok || f.Attempts != 2 || f.Error != "no answer within 100ms" || hits.Load() < 1 || f.Duration < 200 {
		t.Errorf("failure %+v, %d requests; want 2 attempts, each ended at 100ms", rec.all(), hits.Load())
	}
}

// silentServer is a receiver on 127.0.0.1 that reads each request and never
// answers, until the test ends.
func silentServer(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv.URL, &hits
}

// TestCloseGivesUp: what is still under way when Close's time is up is given
// up and recorded; Close returns; a Send after it is recorded as failed.
func TestCloseGivesUp(t *testing.T) {
	t.Parallel()
	srv, _ := silentServer(t)
	rec := &recorder{}
	n := notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: srv}}, Timeout: time.Hour}, nil)
	n.Send(needsYou(), rec.record)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	n.Close(ctx)
	f, ok := rec.one(t).(state.NotificationFailed)
	if !ok || !strings.HasPrefix(f.Error, "agentloop exited before it was delivered") {
		t.Errorf("after Close: %+v", rec.all())
	}
	n.Send(needsYou(), rec.record)
	if evs := rec.all(); len(evs) != 2 || evs[1].Data.(state.NotificationFailed).Error != "agentloop was exiting" {
		t.Errorf("a Send after Close: %+v", evs)
	}
}

// Deliveries under way are bounded: one more is recorded as failed, not
// started, and Send does not wait.
func TestInFlightBounded(t *testing.T) {
	t.Parallel()
	srv, _ := silentServer(t)
	rec := &recorder{}
	n, err := New(t.Context(), target.Config{Webhooks: []target.Endpoint{{URL: srv}}, Timeout: time.Hour}, Options{MaxInFlight: 1})
	if err != nil {
		t.Fatal(err)
	}
	n.Send(needsYou(), rec.record)
	n.Send(needsYou(), rec.record)
	f, ok := rec.one(t).(state.NotificationFailed)
	if !ok || f.Error != "1 notifications are under way already" || f.Attempts != 0 {
		t.Errorf("the second Send: %+v", rec.all())
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	n.Close(ctx)
}

// Only the kinds configured are told.
func TestEventsFilter(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	n := notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: srv.URL}}, Events: []target.Kind{target.KindFinished}}, nil)
	n.Send(needsYou(), nil)
	fin, _ := Of(Run{Name: "build"}, state.Event{Time: at, Data: state.RunFinished{Status: state.StatusSucceeded}}, Rules{})
	n.Send(fin, nil)
	drain(t, n)
	if hits.Load() != 1 {
		t.Errorf("%d requests, want 1 (finished only)", hits.Load())
	}
}

// TestSecretsRedacted: a secret of the environment in the notification's text
// does not reach the receiver, nor a failure's message (a receiver's command
// that fails printing it).
func TestSecretsRedacted(t *testing.T) {
	t.Parallel()
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
	}))
	defer srv.Close()
	rec := &recorder{}
	n := notifier(t, target.Config{Webhooks: []target.Endpoint{{URL: srv.URL}}, Commands: [][]string{target.ShellCommand("echo refused tok-0123456789abcdef >&2; exit 1")}},
		map[string]string{"DEPLOY_TOKEN": "tok-0123456789abcdef"})
	nt := needsYou()
	nt.Text += "\nthe agent printed tok-0123456789abcdef"
	n.Send(nt, rec.record)
	drain(t, n)
	b := <-bodies
	if strings.Contains(string(b), "tok-0123456789abcdef") || !strings.Contains(string(b), "[REDACTED:$DEPLOY_TOKEN]") {
		t.Errorf("body %s", b)
	}
	failed := 0
	for _, ev := range rec.all() {
		if f, ok := ev.Data.(state.NotificationFailed); ok {
			failed++
			if f.Error != "exit status 1: refused [REDACTED:$DEPLOY_TOKEN]" {
				t.Errorf("the failure's message %q, want the secret redacted", f.Error)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d failures recorded, want the command's: %+v", failed, rec.all())
	}
}

// TestSlackAndNtfy: a Slack-compatible receiver gets {"text"}; an ntfy
// server gets a message on the topic of its URL, with the token.
func TestSlackAndNtfy(t *testing.T) {
	t.Parallel()
	type req struct {
		path, auth string
		body       map[string]any
	}
	reqs := make(chan req, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		reqs <- req{r.URL.Path, r.Header.Get("Authorization"), m}
	}))
	defer srv.Close()
	rec := &recorder{}
	n := notifier(t, target.Config{Slack: []target.Endpoint{{URLEnv: "SLACK_URL"}}, Ntfy: []target.Endpoint{{URL: srv.URL + "/agent-runs", TokenEnv: "NTFY_TOKEN"}}},
		map[string]string{"SLACK_URL": srv.URL + "/services/T000/B000/XXXX", "NTFY_TOKEN": "tk_abc"})
	n.Send(needsYou(), rec.record)
	drain(t, n)
	for range 2 {
		r := <-reqs
		switch r.path {
		case "/services/T000/B000/XXXX":
			if want := "*run build needs you: it escalated*\nWhich test is right?\n1) Guide it: agentloop resume build --guidance \"...\""; r.body["text"] != want {
				t.Errorf("slack text %q, want %q", r.body["text"], want)
			}
		case "/":
			if r.body["topic"] != "agent-runs" || r.body["title"] != "agentloop: run build needs you: it escalated" ||
				r.body["priority"] != 4.0 || r.auth != "Bearer tk_abc" || !strings.HasPrefix(r.body["message"].(string), "Which test is right?") {
				t.Errorf("ntfy request %+v", r)
			}
		default:
			t.Errorf("request to %s", r.path)
		}
	}
	if evs := rec.all(); len(evs) != 2 {
		t.Errorf("delivery events %+v", evs)
	}
	for _, ev := range rec.all() {
		if s, ok := ev.Data.(state.NotificationSent); !ok || strings.Contains(s.Target, "XXXX") || strings.Contains(s.Target, "agent-runs") {
			t.Errorf("event %+v: want sent, naming no secret path", ev.Data)
		}
	}
}

// TestCommand: the command gets the notification's JSON on standard input;
// one that fails is a failure naming its exit status and what it said.
func TestCommand(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "got.json")
	rec := &recorder{}
	n := notifier(t, target.Config{Commands: [][]string{target.ShellCommand("cat > " + out), target.ShellCommand("echo boom >&2; exit 3")}, Retries: 1}, nil)
	nt := needsYou()
	n.Send(nt, rec.record)
	drain(t, n)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got Notification
	if err := json.Unmarshal(b, &got); err != nil || got.ID != nt.ID || got.Version != 1 || got.NeedsYou == nil {
		t.Errorf("stdin %s (%v)", b, err)
	}
	var sent, failed int
	for _, ev := range rec.all() {
		switch d := ev.Data.(type) {
		case state.NotificationSent:
			sent++
			if d.Target != "command cat" {
				t.Errorf("sent %+v", d)
			}
		case state.NotificationFailed:
			failed++
			if d.Target != "command echo" || d.Attempts != 2 || d.Error != "exit status 3: boom" {
				t.Errorf("failed %+v", d)
			}
		}
	}
	if sent != 1 || failed != 1 {
		t.Errorf("events %+v", rec.all())
	}
}

// TestDesktop: with a display and notify-send, the desktop is told; without a
// display it is not used.
func TestDesktop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	bin := filepath.Join(dir, "notify-send")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+args+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	look := func(name string) (string, error) {
		if name == "notify-send" {
			return bin, nil
		}
		return "", os.ErrNotExist
	}
	env := map[string]string{"DISPLAY": ":0"}
	n, err := New(t.Context(), target.Config{Desktop: true}, Options{LookPath: look, GOOS: "linux", Getenv: func(k string) string { return env[k] }})
	if err != nil || n == nil {
		t.Fatalf("New() = %v, %v", n, err)
	}
	rec := &recorder{}
	n.Send(needsYou(), rec.record)
	drain(t, n)
	b, _ := os.ReadFile(args)
	if !strings.HasPrefix(string(b), "--app-name=agentloop\n--urgency=critical\nagentloop: run build needs you: it escalated\nWhich test is right?") {
		t.Errorf("notify-send args %q", b)
	}
	if s, ok := rec.one(t).(state.NotificationSent); !ok || s.Target != "desktop" {
		t.Errorf("events %+v", rec.all())
	}
	n, err = New(t.Context(), target.Config{Desktop: true}, Options{LookPath: look, GOOS: "linux", Getenv: func(string) string { return "" }})
	if n != nil || err != nil {
		t.Errorf("New() without a display = %v, %v; want no notifier", n, err)
	}
}

func TestAppleString(t *testing.T) {
	t.Parallel()
	if got := appleString(`say "hi" \ bye`); got != `"say \"hi\" \\ bye"` {
		t.Errorf("appleString() = %s", got)
	}
}
