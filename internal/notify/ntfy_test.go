package notify

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/state"
)

// ntfyReceiver is a receiver on 127.0.0.1 that takes a publish as an ntfy
// server does (server.go: a PUT or POST of JSON to "/", read into its
// publishMessage, the topic checked by its topicRegex, the message at most
// its default message-size-limit, "Authorization: Bearer TOKEN" for a
// protected topic) and refuses what it would refuse, answering as it answers.
type ntfyReceiver struct {
	token string // the access token the topic needs ("": none)
	mu    sync.Mutex
	got   []ntfyPublish
	bad   []string // why each refused request was refused
}

// ntfyPublish is ntfy's publishMessage: the fields and types it decodes.
type ntfyPublish struct {
	Topic    string   `json:"topic"`
	Title    string   `json:"title"`
	Message  string   `json:"message"`
	Priority int      `json:"priority"`
	Tags     []string `json:"tags"`
	Click    string   `json:"click"`
	Icon     string   `json:"icon"`
	Attach   string   `json:"attach"`
	Filename string   `json:"filename"`
	Email    string   `json:"email"`
	Delay    string   `json:"delay"`
}

var ntfyTopicRegex = regexp.MustCompile(`^[-_A-Za-z0-9]{1,64}$`) // ntfy's topicRegex

func (s *ntfyReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	refuse := func(code int, ntfyCode int, why string) {
		s.mu.Lock()
		s.bad = append(s.bad, why)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(map[string]any{"code": ntfyCode, "http": code, "error": why})
	}
	if (r.Method != http.MethodPost && r.Method != http.MethodPut) || r.URL.Path != "/" {
		refuse(http.StatusNotFound, 40401, "not a JSON publish: "+r.Method+" "+r.URL.Path)
		return
	}
	if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
		refuse(http.StatusForbidden, 40301, "forbidden")
		return
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields() // stricter than ntfy: a field it does not read is a mistake here
	var m ntfyPublish
	if err := dec.Decode(&m); err != nil {
		refuse(http.StatusBadRequest, 40017, "invalid request: request body must be message JSON: "+err.Error())
		return
	}
	switch {
	case !ntfyTopicRegex.MatchString(m.Topic):
		refuse(http.StatusBadRequest, 40009, "invalid topic")
		return
	case m.Priority < 0 || m.Priority > 5:
		refuse(http.StatusBadRequest, 40007, "invalid priority")
		return
	case len(m.Message) > ntfyMessageLimit:
		refuse(http.StatusRequestEntityTooLarge, 41301, "too large")
		return
	}
	s.mu.Lock()
	s.got = append(s.got, m)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "hwQ2YpKdmg", "time": 1700000000, "event": "message", "topic": m.Topic, "title": m.Title, "message": m.Message})
}

func (s *ntfyReceiver) results() ([]ntfyPublish, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ntfyPublish(nil), s.got...), append([]string(nil), s.bad...)
}

// TestNtfyPublish: the ntfy receiver publishes as ntfy's publish API reads
// it, to a receiver on 127.0.0.1 that refuses what an ntfy server refuses: a
// needs-you notification and a long one (its message cut to the server's
// limit, at a rune) are published with the token; a wrong token is refused
// (403) once, not tried again, and is a failure event.
func TestNtfyPublish(t *testing.T) {
	t.Parallel()
	recv := &ntfyReceiver{token: "tk_0123456789abcdefghijklmnopq"}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	rec := &recorder{}
	n := notifier(t, target.Config{Ntfy: []target.Endpoint{{URL: srv.URL + "/agent-runs_2", TokenEnv: "NTFY_TOKEN"}}},
		map[string]string{"NTFY_TOKEN": recv.token})
	n.Send(needsYou(), rec.record)
	long := needsYou()
	long.Text = strings.Repeat("é", ntfyMessageLimit) // 2 bytes each
	n.Send(long, rec.record)
	drain(t, n)
	got, bad := recv.results()
	if len(bad) > 0 || len(got) != 2 {
		t.Fatalf("the ntfy server took %d publishes, refused %q; want 2 taken", len(got), bad)
	}
	// Deliveries run in the background, each on its own: the server may take
	// them in either order.
	if len(got[0].Message) > len(got[1].Message) {
		got[0], got[1] = got[1], got[0]
	}
	first := got[0]
	if first.Topic != "agent-runs_2" || first.Title != "agentloop: run build needs you: it escalated" || first.Priority != 4 ||
		!strings.HasPrefix(first.Message, "Which test is right?") || strings.Join(first.Tags, ",") != "agentloop,needs_you" {
		t.Errorf("the needs-you publish: %+v", first)
	}
	if m := got[1].Message; len(m) > ntfyMessageLimit || !utf8.ValidString(m) || !strings.HasSuffix(m, "…") {
		t.Errorf("the long publish's message: %d bytes, valid UTF-8 %v; want at most %d, cut at a rune and ended with …", len(m), utf8.ValidString(m), ntfyMessageLimit)
	}
	for _, ev := range rec.all() {
		if _, ok := ev.Data.(state.NotificationSent); !ok {
			t.Errorf("delivery event %+v, want sent", ev.Data)
		}
	}

	wrong := &recorder{}
	n = notifier(t, target.Config{Ntfy: []target.Endpoint{{URL: srv.URL + "/agent-runs_2", TokenEnv: "NTFY_TOKEN"}}},
		map[string]string{"NTFY_TOKEN": "tk_wrong"})
	n.Send(needsYou(), wrong.record)
	drain(t, n)
	if _, bad := recv.results(); len(bad) != 1 || bad[0] != "forbidden" {
		t.Errorf("the ntfy server refused %q; want one forbidden (a 403 is not tried again)", bad)
	}
	if f, ok := wrong.one(t).(state.NotificationFailed); !ok || f.Attempts != 1 || !strings.Contains(f.Error, "403") || strings.Contains(f.Target, "agent-runs") {
		t.Errorf("delivery event %+v, want one failure after 1 attempt, HTTP 403, naming no topic", wrong.one(t))
	}
}

// TestNtfyTopic: a topic ntfy would refuse is refused when the
// configuration is read, naming no topic (a secret).
func TestNtfyTopic(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"https://ntfy.sh/agent.runs", "https://ntfy.sh/" + strings.Repeat("a", 65), "https://ntfy.sh/a%20b", "https://ntfy.sh/", "https://ntfy.sh/a/b"} {
		_, err := newNtfy(u, "", http.DefaultClient)
		if err == nil || strings.Contains(err.Error(), "agent") {
			t.Errorf("newNtfy(%q) = %v; want refused, naming no topic", u, err)
		}
	}
	for _, u := range []string{"https://ntfy.sh/agent-runs_2", "http://127.0.0.1:8080/" + strings.Repeat("a", 64)} {
		if _, err := newNtfy(u, "", http.DefaultClient); err != nil {
			t.Errorf("newNtfy(%q): %v", u, err)
		}
	}
}
