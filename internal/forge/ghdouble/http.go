package ghdouble

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// apiVersion is the REST API version the double serves: the one GitHub
// selects when a request names none.
const apiVersion = "2022-11-28"

// call is one request on its way through the double.
type call struct {
	r        *http.Request
	path     string // without /api/v3
	prefix   string // /api/v3 when asked GitHub Enterprise's way
	endpoint string // "GET /repos/{owner}/{repo}"
	params   map[string]string
	tok      Token
	repo     *repo
}

// answer is what a handler answers.
type answer struct {
	status int
	body   any // marshalled to JSON; nil for no body
	header http.Header
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := &call{r: r, path: r.URL.EscapedPath()}
	switch {
	case c.path == "/api/graphql":
		c.path = "/graphql"
	case c.path == "/api/v3" || strings.HasPrefix(c.path, "/api/v3/"):
		c.path, c.prefix = strings.TrimPrefix(c.path, "/api/v3"), "/api/v3"
		if c.path == "" {
			c.path = "/"
		}
	}
	if owner, name, prefix, push, ok := gitRoute(r); ok && c.prefix == "" {
		s.serveGit(w, r, owner, name, prefix, push)
		return
	}
	if c.path == "/_ghdouble/stats" {
		s.serveStats(w)
		return
	}
	if id, ok := strings.CutPrefix(c.path, logPath); ok {
		s.serveLog(w, id)
		return
	}
	tmpl, params := route(r.Method, c.path)
	c.endpoint, c.params = r.Method+" "+tmpl, params
	if tmpl == "" {
		c.endpoint = r.Method + " " + c.path
	}

	s.mu.Lock()
	f := s.takeFaultLocked(r.Method, c.path, tmpl)
	if f != nil && (f.Drop || f.Hang) {
		s.log = append(s.log, Request{Method: r.Method, Path: c.path, Endpoint: c.endpoint})
		s.mu.Unlock()
		if f.Drop {
			drop(w)
			return
		}
		<-r.Context().Done()
		return
	}
	ans, body := s.answerLocked(c, f)
	s.log = append(s.log, Request{Method: r.Method, Path: c.path, Endpoint: c.endpoint, Status: ans.status, Login: c.tok.Login})
	s.mu.Unlock()

	for k, vs := range ans.header {
		w.Header()[k] = vs
	}
	if body != nil {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(ans.status)
	if body != nil && r.Method != http.MethodHead {
		w.Write(body)
	}
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

// answerLocked authenticates, limits and answers c, and checks the answer
// against GitHub's description. s.mu is held.
func (s *Server) answerLocked(c *call, f *Fault) (answer, []byte) {
	h := http.Header{}
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-GitHub-Api-Version-Selected", apiVersion)
	s.seq++
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("D0B1:%X:%X", s.seq, s.seq*7919))

	resource := "core"
	if c.path == "/graphql" {
		resource = "graphql"
	}
	if appEndpoint(c.endpoint) && c.params != nil {
		if f == nil {
			return s.finishLocked(c, s.appLocked(c, h))
		}
		ans := f.answer()
		for k, vs := range ans.header {
			h[k] = vs
		}
		ans.header = h
		return s.finishLocked(c, ans)
	}
	tok, known, given := s.token(c.r)
	if !known {
		b := s.bucketLocked("ip:"+c.r.RemoteAddr, 60)
		b.used++
		b.headers(h, "core")
		msg := "Requires authentication"
		if given {
			msg = "Bad credentials"
		}
		return s.finishLocked(c, answer{status: 401, body: errorBody(msg, "https://docs.github.com/rest", 401), header: h})
	}
	c.tok = tok
	if tok.Scopes != nil {
		h.Set("X-OAuth-Scopes", strings.Join(tok.Scopes, ", "))
		h.Set("X-Accepted-OAuth-Scopes", acceptedScopes(c.endpoint))
	}
	b := s.bucketLocked(tok.Login+"/"+resource, s.opts.Limit)
	if b.used >= b.limit && c.path != "/rate_limit" {
		b.headers(h, resource)
		msg := fmt.Sprintf("API rate limit exceeded for user ID %d. If you reach out to GitHub Support for help, please include the request ID %s and timestamp %s.",
			s.userID(tok.Login), h.Get("X-GitHub-Request-Id"), s.now().UTC().Format("2006-01-02 15:04:05 MST"))
		return s.finishLocked(c, answer{status: 403, body: errorBody(msg, "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api", 403), header: h})
	}

	if v := c.r.Header.Get("X-GitHub-Api-Version"); v != "" && v != apiVersion {
		// GitHub serves later versions too, with other shapes (its
		// description's x-github-breaking-changes); the double serves one.
		s.bad = append(s.bad, fmt.Sprintf("%s %s: asked for API version %s; the double serves %s only", c.r.Method, c.path, v, apiVersion))
		b.headers(h, resource)
		return s.finishLocked(c, answer{status: 400, header: h, body: errorBody(
			fmt.Sprintf("API version %s is not supported by the GitHub double (it serves %s).", v, apiVersion), "https://docs.github.com/rest/about-the-rest-api/api-versions", 400)})
	}
	var ans answer
	switch {
	case f != nil:
		ans = f.answer()
	case c.endpoint == "" || c.params == nil:
		ans = notFound()
	default:
		ans = s.handleLocked(c)
	}
	for k, vs := range ans.header {
		h[k] = vs
	}
	ans.header = h
	body, err := marshal(ans.body)
	if err != nil {
		s.bad = append(s.bad, fmt.Sprintf("%s: the answer does not marshal: %v", c.endpoint, err))
		return answer{status: 500, header: h}, nil
	}
	if body != nil {
		ans.body = body
	}
	if c.r.Method == http.MethodGet && ans.status == 200 && body != nil {
		sum := sha256.Sum256(body)
		etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
		h.Set("ETag", etag)
		h.Set("Cache-Control", "private, max-age=60, s-maxage=60")
		h.Set("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP")
		if inm := c.r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, etag) {
			b.headers(h, resource)
			return answer{status: 304, header: h}, nil
		}
	}
	if c.path != "/rate_limit" {
		b.used++
	}
	b.headers(h, resource)
	ans.header = h
	return s.finishLocked(c, ans)
}

// finishLocked marshals ans's body and checks it against the description.
func (s *Server) finishLocked(c *call, ans answer) (answer, []byte) {
	body, err := marshal(ans.body)
	if err != nil {
		s.bad = append(s.bad, fmt.Sprintf("%s: the answer does not marshal: %v", c.endpoint, err))
		return answer{status: 500, header: ans.header}, nil
	}
	switch {
	case c.params == nil:
		s.bad = append(s.bad, fmt.Sprintf("%s %s: the double does not serve this operation (add it to routes.go, with its part of GitHub's description in testdata/openapi.json)", c.r.Method, c.path))
	case c.path != "/graphql":
		if v := checkAnswer(strings.ToLower(c.r.Method), strings.TrimPrefix(c.endpoint, c.r.Method+" "), ans.status, body); v != "" {
			s.bad = append(s.bad, fmt.Sprintf("%s %s answered %d: %s", c.r.Method, c.r.URL.Path, ans.status, v))
		}
	}
	return ans, body
}

func marshal(body any) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	if raw, ok := body.([]byte); ok {
		return raw, nil
	}
	return json.Marshal(body)
}

// etagMatch reports whether the If-None-Match header names etag, weakly
// compared (W/ ignored), or is *.
func etagMatch(header, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == want {
			return true
		}
	}
	return false
}

// token is the request's token: known says the double knows it, given that
// one was sent at all.
func (s *Server) token(r *http.Request) (tok Token, known, given bool) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return Token{}, false, false
	}
	scheme, value, ok := strings.Cut(auth, " ")
	if !ok || (!strings.EqualFold(scheme, "token") && !strings.EqualFold(scheme, "bearer")) {
		return Token{}, false, true
	}
	value = strings.TrimSpace(value)
	tok, known = s.tokens[value]
	if exp, ok := s.expiry[value]; ok && !s.now().Before(exp) {
		return Token{}, false, true // an installation token past its hour
	}
	return tok, known, true
}

func errorBody(msg, doc string, status int) map[string]any {
	return map[string]any{"message": msg, "documentation_url": doc, "status": strconv.Itoa(status)}
}

func notFound() answer {
	return answer{status: 404, body: errorBody("Not Found", "https://docs.github.com/rest", 404)}
}

func forbidden() answer {
	return answer{status: 403, body: errorBody("Resource not accessible by integration", "https://docs.github.com/rest", 403)}
}

// invalid is GitHub's 422: Validation Failed with errs.
func invalid(doc string, errs ...map[string]any) answer {
	b := errorBody("Validation Failed", doc, 422)
	b["errors"] = errs
	return answer{status: 422, body: b}
}
