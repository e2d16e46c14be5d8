package double

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/redact"
)

// TestToken: with a token, a request without it as its API key gets 401 in
// its API's shape; with it (each API's header, or Gemini's ?key=), the reply.
func TestToken(t *testing.T) {
	sc, err := ParseScenario("scenario.yaml", []byte("turns: [{text: hi}]\nfinal: done\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(sc, nil)
	s.Token = "dbl-7f3a9c2e"
	hs := httptest.NewServer(s)
	defer hs.Close()
	do := func(path, header, value string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", hs.URL+path, strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"q"}],"contents":[{"role":"user","parts":[{"text":"q"}]}],"input":"q"}`))
		if header != "" {
			req.Header.Set(header, value)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tt := range []struct {
		path, header, value string
		want                int
	}{
		{"/v1/messages", "", "", 401},
		{"/v1/messages", "x-api-key", "wrong", 401},
		{"/v1/models", "", "", 401},
		{"/v1/messages", "x-api-key", "dbl-7f3a9c2e", 200},
		{"/v1/chat/completions", "Authorization", "Bearer dbl-7f3a9c2e", 200},
		{"/v1beta/models/m:generateContent", "x-goog-api-key", "dbl-7f3a9c2e", 200},
		{"/v1beta/models/m:generateContent?key=dbl-7f3a9c2e", "", "", 200},
	} {
		if got := do(tt.path, tt.header, tt.value); got != tt.want {
			t.Errorf("%s with %s %q: %d, want %d", tt.path, tt.header, tt.value, got, tt.want)
		}
	}
}

// TestLogRedacted: a secret in a request (the prompt, a tool's result) is not
// in the request log nor in the records, cut at 200 bytes or not.
func TestLogRedacted(t *testing.T) {
	sc, err := ParseScenario("scenario.yaml", []byte("turns: [{text: hi}]\nfinal: done\n"))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	s := New(sc, &log)
	s.Redact = redact.New([]string{"SERVICE_TOKEN=svc-4e8b1d6f9a2c"})
	hs := httptest.NewServer(s)
	defer hs.Close()
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6ImFnZW50IiwiaWF0IjoxNzE2MjM5MDIyfQ.Qm7XkR2pL9vT4sY6bC1dF5gH0jK2aE9zW3nM8xV5uIo"
	gh := "ghp_R8xk2Lq9VwZ3mN7pT4sY6bC1dF5gH0jK2aE9"
	for _, prompt := range []string{
		"use svc-4e8b1d6f9a2c and " + gh,
		strings.Repeat("x", 170) + " token " + jwt, // the JWT crosses the 200-byte cut
	} {
		body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": prompt}}})
		post(t, hs.URL+"/v1/messages", string(body))
	}
	for _, secret := range []string{"svc-4e8b1d6f9a2c", gh, jwt[:40], jwt[len(jwt)-20:]} {
		if strings.Contains(log.String(), secret) {
			t.Errorf("the log holds %q:\n%s", secret, log.String())
		}
		for _, r := range s.Records() {
			if strings.Contains(r.Last, secret) {
				t.Errorf("a record holds %q: %q", secret, r.Last)
			}
		}
	}
	if !strings.Contains(log.String(), "[REDACTED:$SERVICE_TOKEN]") || strings.Count(log.String(), "[REDACTED]") < 2 {
		t.Errorf("the log does not show what was redacted:\n%s", log.String())
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:0": true, "localhost:8080": true, "[::1]:0": true, "127.1.2.3:9": true,
		":0": false, "0.0.0.0:0": false, "[::]:0": false, "192.168.1.5:80": false, "example.com:80": false, "nonsense": false,
	} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
