package double

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Any scenario file is an error or a scenario, never a panic.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(scenario))
	f.Add([]byte("fault: {status: 429, count: 1}\nturns: [{calls: [{name: x, args: {a: [1]}}]}]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseScenario("scenario.yaml", b)
	})
}

// Any request body on any API path gets an answer, never a panic.
func FuzzRequest(f *testing.F) {
	for _, p := range []string{"/v1/messages", "/v1/responses", "/v1/chat/completions", "/v1beta/models/g:generateContent"} {
		f.Add(p, `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`)
		f.Add(p, `{"input":[{"type":"function_call"},{"role":"user","content":7}],"contents":[{"role":"model","parts":[{"functionResponse":{"response":null}}]}]}`)
	}
	sc, err := ParseScenario("scenario.yaml", []byte(scenario))
	if err != nil {
		f.Fatal(err)
	}
	s := New(sc, nil)
	f.Fuzz(func(t *testing.T, path, body string) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req, err := http.NewRequest(http.MethodPost, "http://double"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		s.ServeHTTP(httptest.NewRecorder(), req)
	})
}
