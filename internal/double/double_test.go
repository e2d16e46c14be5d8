package double

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const scenario = `
model: double-1
turns:
  - text: "I will fix it."
    shell: "echo fixed > x.txt"
    usage: {input: 1200, cached: 200, output: 40}
  - fault: {status: 429, retry_after: 3, count: 1}
    text: "Fixed x.txt."
    usage: {input: 1500, cached: 1000, output: 12}
`

func start(t *testing.T, yaml string) (*Server, string) {
	t.Helper()
	sc, err := ParseScenario("scenario.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	s := New(sc, nil)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs.URL
}

func post(t *testing.T, url, body string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// Each API, streamed and not: turn 0 calls the CLI's shell tool, turn 1 first
// gets a 429 with retry-after, then the text; usage in the API's own shape.
func TestAPIs(t *testing.T) {
	type req struct{ path, first, second string }
	cases := map[string]struct {
		req             req
		wantCall        string // in the first reply
		wantText        string // in the second reply
		wantUsage       string // in the second reply
		wantRateLimited string // in the 429 body
	}{
		"anthropic": {
			req: req{"/v1/messages",
				`{"model":"m","stream":%s,"tools":[{"name":"Read"},{"name":"Bash"}],"messages":[{"role":"user","content":"fix"}]}`,
				`{"model":"m","stream":%s,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"fix"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}]}`},
			wantCall: `"name":"Bash"`, wantText: "Fixed x.txt.",
			wantUsage: `"cache_read_input_tokens":1000,"input_tokens":500,"output_tokens":12`, wantRateLimited: "rate_limit_error",
		},
		"responses": {
			req: req{"/v1/responses",
				`{"model":"m","stream":%s,"tools":[{"type":"function","name":"shell"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"fix"}]}]}`,
				`{"model":"m","stream":%s,"tools":[{"type":"function","name":"shell"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"fix"}]},{"type":"reasoning"},{"type":"function_call","call_id":"c","name":"shell","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}]}`},
			wantCall: `"name":"shell"`, wantText: "Fixed x.txt.",
			wantUsage: `"input_tokens":1500,"input_tokens_details":{"cached_tokens":1000},"output_tokens":12`, wantRateLimited: "rate_limit_exceeded",
		},
		"chat": {
			req: req{"/v1/chat/completions",
				`{"model":"m","stream":%s,"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"system","content":"s"},{"role":"user","content":"fix"}]}`,
				`{"model":"m","stream":%s,"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"user","content":"fix"},{"role":"assistant","content":null,"tool_calls":[]},{"role":"tool","content":"ok"}]}`},
			wantCall: `"name":"bash"`, wantText: "Fixed x.txt.",
			wantUsage: `"prompt_tokens":1500,"prompt_tokens_details":{"cached_tokens":1000}`, wantRateLimited: "rate_limit_exceeded",
		},
		"gemini": {
			req: req{"/v1beta/models/gemini-2.5-pro:%s",
				`{"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}],"contents":[{"role":"user","parts":[{"text":"fix"}]}]}`,
				`{"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}],"contents":[{"role":"user","parts":[{"text":"fix"}]},{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"ok"}}}]}]}`},
			wantCall: `"name":"run_shell_command"`, wantText: "Fixed x.txt.",
			wantUsage: `"cachedContentTokenCount":1000,"candidatesTokenCount":12,"promptTokenCount":1500`, wantRateLimited: "RESOURCE_EXHAUSTED",
		},
	}
	for name, c := range cases {
		for _, stream := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "", true: "/stream"}[stream], func(t *testing.T) {
				s, base := start(t, scenario)
				url, first, second := base+c.req.path, c.req.first, c.req.second
				if name == "gemini" {
					m := map[bool]string{false: "generateContent", true: "streamGenerateContent?alt=sse"}[stream]
					url = base + strings.Replace(c.req.path, "%s", m, 1)
				} else {
					first = strings.Replace(first, "%s", map[bool]string{false: "false", true: "true"}[stream], 1)
					second = strings.Replace(second, "%s", map[bool]string{false: "false", true: "true"}[stream], 1)
				}
				code, _, body := post(t, url, first)
				if code != 200 || !strings.Contains(body, c.wantCall) || !strings.Contains(body, "echo fixed") {
					t.Fatalf("first reply: %d %s", code, body)
				}
				if stream != strings.Contains(body, "data: ") {
					t.Errorf("stream=%v but the reply is %s", stream, body)
				}
				code, h, body := post(t, url, second)
				if code != 429 || h.Get("Retry-After") != "3" || !strings.Contains(body, c.wantRateLimited) {
					t.Fatalf("second reply, first try: %d retry-after %q %s", code, h.Get("Retry-After"), body)
				}
				code, _, body = post(t, url, second)
				if code != 200 || !strings.Contains(body, c.wantText[:5]) || !strings.Contains(body, c.wantUsage) {
					t.Fatalf("second reply, second try: %d %s", code, body)
				}
				recs := s.Records()
				if len(recs) != 3 || recs[0].Turn != 0 || recs[1].Fault != "429" || recs[2].Turn != 1 || recs[2].Stream != stream {
					t.Fatalf("records: %+v", recs)
				}
				if got := Total(recs); got != (Usage{Input: 2700, Cached: 1200, Output: 52}) {
					t.Errorf("total usage %+v", got)
				}
			})
		}
	}
}

// A request without tools is a side request: a generic reply, JSON when asked
// for JSON, and no scripted turn used up.
func TestSideRequest(t *testing.T) {
	s, base := start(t, scenario)
	_, _, body := post(t, base+"/v1beta/models/flash:generateContent",
		`{"contents":[{"role":"user","parts":[{"text":"route"}]}],"generationConfig":{"responseMimeType":"application/json"}}`)
	if !strings.Contains(body, `model_choice`) {
		t.Errorf("side JSON reply: %s", body)
	}
	_, _, body = post(t, base+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"title?"}]}`)
	if !strings.Contains(body, `"text":"ok"`) {
		t.Errorf("side reply: %s", body)
	}
	_, _, body = post(t, base+"/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"count me please"}]}`)
	if !strings.Contains(body, `"input_tokens":`) {
		t.Errorf("count reply: %s", body)
	}
	for _, r := range s.Records() {
		if !r.Side || r.Turn != -1 {
			t.Errorf("not a side request: %+v", r)
		}
	}
}

// A usage limit: from the first request that meets it until its reset every
// request gets the API's usage-limit reply with the reset time (the headers
// and body each CLI reads), then the turn is served.
func TestUsageLimit(t *testing.T) {
	cases := map[string]struct {
		path, body string
		check      func(h http.Header, body string, reset, left int64) bool
	}{
		"anthropic": {"/v1/messages", `{"model":"m","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"fix"}]}`,
			func(h http.Header, body string, reset, _ int64) bool {
				return h.Get("anthropic-ratelimit-unified-status") == "rejected" && h.Get("anthropic-ratelimit-unified-reset") == fmt.Sprint(reset) &&
					h.Get("anthropic-ratelimit-unified-representative-claim") == "five_hour" && strings.Contains(body, "rate_limit_error")
			}},
		"responses": {"/v1/responses", `{"model":"m","tools":[{"type":"function","name":"shell"}],"input":"fix"}`,
			func(h http.Header, body string, reset, _ int64) bool {
				var e struct {
					Error struct {
						Type     string `json:"type"`
						ResetsAt int64  `json:"resets_at"`
					} `json:"error"`
				}
				return json.Unmarshal([]byte(body), &e) == nil && e.Error.Type == "usage_limit_reached" && e.Error.ResetsAt == reset &&
					h.Get("x-codex-primary-reset-at") == fmt.Sprint(reset)
			}},
		"chat": {"/v1/chat/completions", `{"model":"m","tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"user","content":"fix"}]}`,
			func(h http.Header, body string, _, left int64) bool {
				return h.Get("Retry-After") == fmt.Sprint(left) && strings.Contains(body, "rate_limit_exceeded")
			}},
		"gemini": {"/v1beta/models/g:generateContent", `{"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}],"contents":[{"role":"user","parts":[{"text":"fix"}]}]}`,
			func(h http.Header, body string, _, left int64) bool {
				return strings.Contains(body, "RESOURCE_EXHAUSTED") && strings.Contains(body, fmt.Sprintf(`"retryDelay":"%ds"`, left))
			}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s, base := start(t, "turns:\n  - fault: {usage_limit: 60}\n    text: after the reset\n")
			now := time.Unix(1_800_000_000, 0)
			s.now = func() time.Time { return now }
			reset := now.Add(60 * time.Second).Unix()
			for _, after := range []time.Duration{0, 30 * time.Second, 59 * time.Second} {
				now = time.Unix(1_800_000_000, 0).Add(after)
				code, h, body := post(t, base+c.path, c.body)
				if code != 429 || !c.check(h, body, reset, reset-now.Unix()) {
					t.Fatalf("%s after the limit was met: %d %v %s", after, code, h, body)
				}
			}
			now = time.Unix(reset, 0)
			if code, _, body := post(t, base+c.path, c.body); code != 200 || !strings.Contains(body, "after the reset") {
				t.Fatalf("at the reset: %d %s", code, body)
			}
			recs := s.Records()
			if len(recs) != 4 || recs[0].Fault != "usage_limit" || recs[0].Status != 429 || recs[3].Fault != "" {
				t.Errorf("records: %+v", recs)
			}
		})
	}
}

func TestFaultEveryRequest(t *testing.T) {
	s, base := start(t, "fault: {status: 401}\nturns: [{text: hi}]\n")
	for i := 0; i < 3; i++ {
		code, _, body := post(t, base+"/v1/responses", `{"model":"m","input":"hi","tools":[{"type":"function","name":"shell"}]}`)
		if code != 401 || !strings.Contains(body, "invalid_api_key") {
			t.Fatalf("try %d: %d %s", i, code, body)
		}
	}
	if got := Total(s.Records()); got != (Usage{}) {
		t.Errorf("usage served with errors: %+v", got)
	}
}

// A cut stream ends without its final event; a hanging one sends its first
// event and then nothing until the client goes away.
func TestCutAndHang(t *testing.T) {
	_, base := start(t, "turns: [{text: hello there, fault: {cut: true}}]\n")
	resp, err := http.Post(base+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || strings.Contains(string(b), "message_stop") || !strings.Contains(string(b), "message_start") {
		t.Errorf("cut stream: err %v, body %s", err, b)
	}

	s, base := start(t, "turns: [{text: hello, fault: {hang: true}}]\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hreq, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/chat/completions",
		strings.NewReader(`{"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"user","content":"hi"}]}`))
	resp, err = http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("first event of a hanging reply: %q %v", line, err)
	}
	done := make(chan struct{})
	go func() { io.ReadAll(resp.Body); close(done) }()
	select {
	case <-done:
		t.Fatal("a hanging reply ended by itself")
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	<-done
	if r := s.Records(); len(r) != 1 || r[0].Fault != "hang" || r[0].Usage != nil {
		t.Errorf("records: %+v", r)
	}
}

// A scenario's problems read as the configuration's do: every one at once, at
// file:line:col, an unknown key with the closest known one.
func TestScenarioErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"unknown key", "turns:\n  - shel: ls\n", `s.yaml:2:5: turns[0]: unknown key "shel"; did you mean "shell"?`},
		{"unknown key far from any", "turns: [{zzzz: 1}]", `s.yaml:1:10: turns[0]: unknown key "zzzz"; expected one of calls, fault, shell, text, usage, write`},
		{"every problem", "modle: m\nturns:\n  - text: hi\n    usage: {input: many}\n", "s.yaml:1:1: unknown key \"modle\"; did you mean \"model\"?\n" +
			`s.yaml:4:20: turns[0].usage.input: expected a whole number, got "many"`},
		{"fault without status", "turns: [{fault: {retry_after: 3}}]", "s.yaml:1:17: turns[0].fault: a fault needs a status, cut, hang or usage_limit"},
		{"usage limit with a count", "fault: {usage_limit: 60, count: 1}", "s.yaml:1:8: fault: a usage_limit fault is a 429 until the reset: give it no other status, cut, hang or count"},
		{"usage limit of another status", "fault: {usage_limit: 60, status: 500}", "s.yaml:1:8: fault: a usage_limit fault is a 429 until the reset: give it no other status, cut, hang or count"},
		{"negative usage limit", "fault: {usage_limit: -1}", "s.yaml:1:8: fault: a fault's usage_limit (seconds until the reset) cannot be negative"},
		{"not an error status", "fault: {status: 200}", "s.yaml:1:8: fault: fault status 200 is not an HTTP error status (400-599)"},
		{"negative count", "fault: {status: 429, count: -1}", "s.yaml:1:8: fault: a fault's count and retry_after cannot be negative"},
		{"write without path", "turns: [{write: {content: x}}]", "s.yaml:1:17: turns[0].write: a write needs a path"},
		{"call without name", "turns: [{calls: [{args: {a: 1}}]}]", "s.yaml:1:18: turns[0].calls[0]: a call needs a name: the tool to call"},
		{"turns not a list", "turns: {text: hi}", "s.yaml:1:8: turns: expected a list, got a mapping"},
		{"top not a mapping", "- text: hi", "s.yaml:1:1: expected a mapping (fault, final, model, side, side_usage, turns), got a list"},
		{"flag not a boolean", "fault: {cut: sometimes}", `s.yaml:1:14: fault.cut: expected true or false, got "sometimes"`},
		{"syntax", "turns:\n  - text: [\n", "s.yaml:2:1: not valid YAML: did not find expected node content"},
		{"empty", "", "s.yaml:1:1: the scenario is empty: write its turns: (each with text, shell, write, calls, usage or fault)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseScenario("s.yaml", []byte(tt.in))
			if !errors.Is(err, ErrInvalidScenario) {
				t.Fatalf("ParseScenario() = %v, want an error wrapping ErrInvalidScenario", err)
			}
			_, got, _ := strings.Cut(err.Error(), "\n")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseScenario() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A turn's calls are kept only for the tools the request declares, so one turn
// can name each CLI's tool; the request log holds one JSON object per line.
func TestCallsAndLog(t *testing.T) {
	sc, err := ParseScenario("scenario.yaml", []byte(`
turns:
  - calls:
      - {name: Write, args: {file_path: /tmp/x, content: hi}}
      - {name: write_file, args: {file_path: x, content: hi}}
`))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	hs := httptest.NewServer(New(sc, &log))
	defer hs.Close()
	_, _, body := post(t, hs.URL+"/v1/messages", `{"model":"m","tools":[{"name":"Write"}],"messages":[{"role":"user","content":"w"}]}`)
	if !strings.Contains(body, `"name":"Write"`) || strings.Contains(body, "write_file") {
		t.Errorf("calls: %s", body)
	}
	var rec Record
	if err := json.Unmarshal([]byte(strings.TrimSpace(log.String())), &rec); err != nil || rec.API != "anthropic" || rec.Calls[0] != "Write" {
		t.Errorf("log line %q: %v %+v", log.String(), err, rec)
	}
}

// A write turn becomes a here-document for the CLI's shell tool.
func TestWrite(t *testing.T) {
	_, base := start(t, "turns: [{write: {path: a/x.go, content: \"package a\\n\"}, shell: go vet ./a}]\n")
	_, _, body := post(t, base+"/v1/responses", `{"model":"m","input":"w","tools":[{"type":"function","name":"exec_command"}]}`)
	var resp struct {
		Output []struct{ Name, Arguments string }
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	want := `mkdir -p "$(dirname 'a/x.go')" && cat > 'a/x.go' <<'DOUBLE_EOF'` + "\npackage a\nDOUBLE_EOF\ngo vet ./a"
	var args map[string]string
	if len(resp.Output) != 1 || json.Unmarshal([]byte(resp.Output[0].Arguments), &args) != nil || args["cmd"] != want {
		t.Errorf("write call: %s\nwant cmd %q", body, want)
	}
}
