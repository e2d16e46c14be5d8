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
