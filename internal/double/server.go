package double

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/textcut"
)

// Record is one logged request: what was asked and what the double served.
type Record struct {
	Seq    int    `json:"seq"`
	Time   string `json:"time"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// API is anthropic, responses, chat, gemini or other.
	API    string `json:"api"`
	Model  string `json:"model,omitempty"`
	Stream bool   `json:"stream,omitempty"`
	// Conversation is a short hash of the conversation's first user message.
	Conversation string `json:"conversation,omitempty"`
	// Turn is the scripted turn served (0-based); len(turns) is the final
	// reply; -1 is a side request or a request outside the model APIs.
	Turn int `json:"turn"`
	// Side is a request that declares no tools: a title, a routing choice, a count.
	Side  bool     `json:"side,omitempty"`
	Tools []string `json:"tools,omitempty"`
	// Last is the start of the conversation's last message (a prompt or a tool result).
	Last   string `json:"last,omitempty"`
	Status int    `json:"status"`
	// Fault is the fault served: the status, "cut" or "hang".
	Fault string   `json:"fault,omitempty"`
	Calls []string `json:"calls,omitempty"`
	// Usage is the usage the reply reported; nil when no reply was completed.
	Usage *Usage `json:"usage,omitempty"`
}

// Server serves a scenario over HTTP. It is safe for concurrent requests.
type Server struct {
	// Token, when set, must come with every request, as the API key a CLI
	// sends (x-api-key, Authorization: Bearer, x-goog-api-key or ?key=);
	// a request without it gets 401. Set it before serving.
	Token string
	// Redact is applied to what the request log records of a request (the
	// start of its last message); nil: credential shapes only. Set it before
	// serving.
	Redact *redact.Redactor

	sc  *Scenario
	now func() time.Time

	mu      sync.Mutex
	log     io.Writer
	seq     int
	served  map[int]int       // faults served, by turn (-1: the scenario's fault)
	resets  map[int]time.Time // usage limits met, by turn: when each resets
	records []Record
}

// New returns a server for the scenario that writes each request's [Record] to
// log as a JSON line (log may be nil).
func New(sc *Scenario, log io.Writer) *Server {
	return &Server{sc: sc, log: log, now: time.Now, served: map[int]int{}, resets: map[int]time.Time{}}
}

// Records returns the requests served so far.
func (s *Server) Records() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Record(nil), s.records...)
}

// Total is the usage of every completed reply, side requests included: what a
// CLI that reports usage faithfully reports.
func Total(recs []Record) Usage {
	var u Usage
	for _, r := range recs {
		if r.Usage != nil {
			u.Input += r.Usage.Input
			u.Output += r.Usage.Output
			u.Cached += r.Usage.Cached
			u.CacheWrite += r.Usage.CacheWrite
			u.Reasoning += r.Usage.Reasoning
		}
	}
	return u
}

// request is what the double reads from any API's request.
type request struct {
	api     string
	model   string
	stream  bool
	tools   []tool
	replies int // the model's replies already in the conversation
	first   string
	last    string
	json    bool // the client asks for a JSON reply
}

type tool struct {
	name   string
	custom bool // an OpenAI custom (free-form) tool
}

// reply is what the double answers, before it is put in an API's shape.
type reply struct {
	id    string
	model string
	text  string
	calls []toolCall
	usage Usage
}

type toolCall struct {
	id     string
	name   string
	args   map[string]any
	custom string // the input of a custom tool call
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := Record{Method: r.Method, Path: r.URL.Path, API: "other", Turn: -1}
	if err != nil {
		rec.Status = http.StatusBadRequest
		s.finish(&rec)
		http.Error(w, "read the request: "+err.Error(), rec.Status)
		return
	}
	a, method := route(r)
	if s.Token != "" && !hasToken(r, s.Token) {
		rec.Status, rec.Fault = http.StatusUnauthorized, "token"
		s.finish(&rec)
		if a == nil {
			http.Error(w, "the double wants its --token as the API key", rec.Status)
			return
		}
		writeJSON(w, rec.Status, a.errorReply(w.Header(), rec.Status, 0, "the double wants its --token as the API key"))
		return
	}
	if a == nil {
		s.other(w, r, &rec)
		return
	}
	rec.API = a.name()
	req, err := a.parse(body, r)
	if err != nil {
		rec.Status = http.StatusBadRequest
		s.finish(&rec)
		writeJSON(w, rec.Status, a.errorReply(w.Header(), rec.Status, 0, "the double could not read the request: "+err.Error()))
		return
	}
	// Redacted before it is cut: a secret cut in two is no longer one shape.
	rec.Model, rec.Stream, rec.Last = req.model, req.stream, textcut.Bytes(strings.TrimSpace(s.Redact.String(req.last)), 200)
	if req.first != "" {
		h := sha256.Sum256([]byte(req.first))
		rec.Conversation = hex.EncodeToString(h[:4])
	}
	for _, t := range req.tools {
		rec.Tools = append(rec.Tools, t.name)
	}
	if method == "countTokens" {
		rec.Side, rec.Status = true, http.StatusOK
		s.finish(&rec)
		writeJSON(w, rec.Status, map[string]int{a.countKey(): len(body) / 4})
		return
	}
	rep, fault, reset := s.plan(req, &rec)
	if fault != nil && fault.UsageLimit > 0 {
		rec.Status, rec.Fault = http.StatusTooManyRequests, "usage_limit"
		s.finish(&rec)
		writeJSON(w, rec.Status, a.usageLimit(w.Header(), reset, max(int(reset.Sub(s.now()).Round(time.Second)/time.Second), 1), fault.Message))
		return
	}
	if fault != nil && fault.Status != 0 {
		rec.Status, rec.Fault = fault.Status, fmt.Sprint(fault.Status)
		s.finish(&rec)
		if fault.RetryAfter > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(fault.RetryAfter))
		}
		writeJSON(w, fault.Status, a.errorReply(w.Header(), fault.Status, fault.RetryAfter, fault.Message))
		return
	}
	for _, c := range rep.calls {
		rec.Calls = append(rec.Calls, c.name)
	}
	rec.Status = http.StatusOK
	var frames []frame
	if req.stream {
		frames = a.stream(rep)
	} else {
		b, _ := json.Marshal(a.whole(rep))
		frames = []frame{{data: b}}
	}
	switch {
	case fault != nil && fault.Hang:
		rec.Fault = "hang"
		s.finish(&rec)
		s.hang(w, r, req.stream, frames)
	case fault != nil && fault.Cut:
		rec.Fault = "cut"
		s.finish(&rec)
		s.cut(w, req.stream, frames)
	default:
		u := rep.usage
		rec.Usage = &u
		s.finish(&rec)
		write(w, req.stream, frames)
	}
}

// plan picks the turn and the fault for a request, and a usage limit's reset.
func (s *Server) plan(req *request, rec *Record) (reply, *Fault, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	rec.Seq = s.seq
	rep := reply{id: fmt.Sprintf("double-%d", s.seq), model: req.model}
	if s.sc.Model != "" {
		rep.model = s.sc.Model
	}
	fault, key := s.take(-1, s.sc.Fault), -1
	if len(req.tools) == 0 {
		rec.Side = true
		rep.text = s.sc.Side
		if rep.text == "" {
			rep.text = "ok"
			if req.json {
				rep.text = `{"reasoning":"scripted reply","model_choice":"flash","next_speaker":"user","complexity_reasoning":"scripted reply","complexity_score":10}`
			}
		}
		rep.usage = Usage{Input: 10, Output: 2}
		if s.sc.SideUsage != nil {
			rep.usage = *s.sc.SideUsage
		}
		return rep, fault, s.resets[key]
	}
	rec.Turn = req.replies
	if req.replies >= len(s.sc.Turns) {
		rec.Turn = len(s.sc.Turns)
		rep.text = s.sc.Final
		if rep.text == "" {
			rep.text = "Done."
		}
		rep.usage = Usage{Input: 100, Output: 5}
		return rep, fault, s.resets[key]
	}
	t := s.sc.Turns[req.replies]
	if fault == nil {
		fault, key = s.take(req.replies, t.Fault), req.replies
	}
	rep.text = t.Text
	rep.usage = Usage{Input: 100, Output: 10}
	if t.Usage != nil {
		rep.usage = *t.Usage
	}
	rep.calls = calls(t, req.tools, rep.id)
	return rep, fault, s.resets[key]
}

// hasToken reports whether r carries token as the API key of one of the APIs.
func hasToken(r *http.Request, token string) bool {
	for _, v := range []string{r.Header.Get("x-api-key"), r.Header.Get("x-goog-api-key"), r.URL.Query().Get("key"),
		strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")} {
		if v != "" && subtle.ConstantTimeCompare([]byte(v), []byte(token)) == 1 {
			return true
		}
	}
	return false
}

// take returns f if it still applies, counting it as served. A usage limit
// applies from the first request that meets it until its reset.
func (s *Server) take(key int, f *Fault) *Fault {
	if f == nil {
		return nil
	}
	if f.UsageLimit > 0 {
		reset, met := s.resets[key]
		if !met {
			reset = s.now().Add(time.Duration(f.UsageLimit) * time.Second)
			s.resets[key] = reset
		}
		if !s.now().Before(reset) {
			return nil
		}
	}
	if f.Count > 0 && s.served[key] >= f.Count {
		return nil
	}
	s.served[key]++
	return f
}

func (s *Server) finish(rec *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec.Seq == 0 {
		s.seq++
		rec.Seq = s.seq
	}
	rec.Time = s.now().UTC().Format(time.RFC3339Nano)
	s.records = append(s.records, *rec)
	if s.log != nil {
		b, _ := json.Marshal(rec)
		s.log.Write(append(s.Redact.Bytes(b), '\n'))
	}
}

// other answers the requests outside the model APIs: model lists, and a 404
// that names the path for the rest.
func (s *Server) other(w http.ResponseWriter, r *http.Request, rec *Record) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodHead {
		rec.Status = http.StatusOK
		s.finish(rec)
		return
	}
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		rec.Status = http.StatusOK
		s.finish(rec)
		m := s.sc.Model
		if m == "" {
			m = "double-1"
		}
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","type":"model","display_name":%q,"created":0,"owned_by":"double"}],"models":[{"name":"models/%s","slug":%q}],"has_more":false}`, m, m, m, m)
		return
	}
	rec.Status = http.StatusNotFound
	s.finish(rec)
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"error":{"message":"the model double does not serve %s %s","type":"not_found"}}`, r.Method, r.URL.Path)
}

// calls renders a turn's tool calls for the tools the request declares.
func calls(t Turn, tools []tool, id string) []toolCall {
	declared := map[string]tool{}
	for _, tl := range tools {
		declared[tl.name] = tl
	}
	var out []toolCall
	add := func(name string, args map[string]any) {
		c := toolCall{id: fmt.Sprintf("call_%s_%d", strings.ReplaceAll(id, "-", "_"), len(out)), name: name, args: args}
		if declared[name].custom {
			c.custom, _ = args["input"].(string)
		}
		out = append(out, c)
	}
	shell := t.Shell
	if t.Write != nil {
		w := "mkdir -p \"$(dirname '" + t.Write.Path + "')\" && cat > '" + t.Write.Path + "' <<'DOUBLE_EOF'\n" +
			strings.TrimSuffix(t.Write.Content, "\n") + "\nDOUBLE_EOF"
		if shell != "" {
			w += "\n" + shell
		}
		shell = w
	}
	if shell != "" {
		if name, args, ok := shellCall(declared, shell); ok {
			add(name, args)
		}
	}
	for _, c := range t.Calls {
		if _, ok := declared[c.Name]; ok {
			add(c.Name, c.Args)
		}
	}
	return out
}

// shellTools are the shell tools of the CLIs, in the order they are looked for,
// with how each takes a command.
var shellTools = []struct {
	name string
	args func(cmd string) map[string]any
}{
	{"Bash", func(c string) map[string]any {
		return map[string]any{"command": c, "description": "Run a scripted command"}
	}},
	{"run_shell_command", func(c string) map[string]any {
		return map[string]any{"command": c, "description": "Run a scripted command", "is_background": false}
	}},
	{"bash", func(c string) map[string]any {
		return map[string]any{"command": c, "description": "Run a scripted command"}
	}},
	{"exec_command", func(c string) map[string]any { return map[string]any{"cmd": c} }},
	{"shell_command", func(c string) map[string]any { return map[string]any{"command": c} }},
	{"shell", func(c string) map[string]any { return map[string]any{"command": []string{"bash", "-lc", c}} }},
	{"execute_command", func(c string) map[string]any { return map[string]any{"command": c} }},
	{"run_command", func(c string) map[string]any { return map[string]any{"command": c} }},
}

func shellCall(declared map[string]tool, cmd string) (string, map[string]any, bool) {
	for _, st := range shellTools {
		if _, ok := declared[st.name]; ok {
			return st.name, st.args(cmd), true
		}
	}
	return "", nil, false
}
