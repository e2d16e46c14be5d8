package agent

import (
	"fmt"
	"testing"
)

// The error records of the CLIs that say why a request failed: an HTTP
// status or code of 401/403 is an authentication failure, 429 a rate limit,
// 5xx (or an error the CLI calls retryable) a transient one, anything else
// none of them.
func TestErrorRecordKinds(t *testing.T) {
	t.Parallel()
	type kinds struct{ auth, rateLimited, transient bool }
	opencode := func(status int, retryable string) string {
		return fmt.Sprintf(`{"type":"error","sessionID":"s","error":{"name":"APIError","data":{"message":"request failed","statusCode":%d,"isRetryable":%s}}}`, status, retryable)
	}
	geminiSays := func(code, msg string) string {
		return fmt.Sprintf(`{"session_id":"s","error":{"type":"Error","message":%q,"code":%s}}`, msg, code)
	}
	gemini := func(code string) string { return geminiSays(code, "request failed") }
	tests := []struct {
		format, line string
		want         kinds
	}{
		{FormatOpencode, opencode(429, "false"), kinds{rateLimited: true}},
		{FormatOpencode, opencode(401, "false"), kinds{auth: true}},
		{FormatOpencode, opencode(403, "false"), kinds{auth: true}},
		{FormatOpencode, opencode(500, "false"), kinds{transient: true}},
		{FormatOpencode, opencode(503, "null"), kinds{transient: true}},
		{FormatOpencode, opencode(499, "false"), kinds{}},
		{FormatOpencode, opencode(400, "true"), kinds{transient: true}},
		{FormatOpencode, opencode(400, "null"), kinds{}},
		{FormatGeminiJSON, gemini("401"), kinds{auth: true}},
		{FormatGeminiJSON, gemini("403"), kinds{auth: true}},
		{FormatGeminiJSON, gemini("41"), kinds{auth: true}}, // gemini's own "no auth method" exit code
		{FormatGeminiJSON, gemini("400"), kinds{}},
		{FormatGeminiJSON, geminiSays("400", "Quota exceeded for this project"), kinds{rateLimited: true}},
		{FormatGeminiJSON, geminiSays("400", "got status 429 from the API"), kinds{rateLimited: true}},
		{FormatGeminiJSON, gemini(`"UNAUTHENTICATED"`), kinds{}},
	}
	for _, tc := range tests {
		p, err := NewParser(tc.format)
		if err != nil {
			t.Fatal(err)
		}
		p.Line([]byte(tc.line))
		out := p.Result()
		if got := (kinds{out.Auth, out.RateLimited, out.Transient}); got != tc.want || !out.IsError {
			t.Errorf("%s %s: auth, rate limited, transient = %+v (error %v), want %+v", tc.format, tc.line, got, out.IsError, tc.want)
		}
	}
	// opencode's reason names the HTTP status when there is one.
	for status, want := range map[int]string{500: "APIError: request failed (HTTP 500)", 0: "APIError: request failed"} {
		p, _ := NewParser(FormatOpencode)
		p.Line([]byte(opencode(status, "null")))
		if got := p.Result().Reason; got != want {
			t.Errorf("status %d: reason %q, want %q", status, got, want)
		}
	}
}
