package agent

import "testing"

// TestRateLimitPrefilterKeepsEveryMatch checks that the cheap word filter in
// front of stdoutRateLimit never hides a line the pattern would match.
func TestRateLimitPrefilterKeepsEveryMatch(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		"Claude AI usage limit reached|1893456000",
		"Error: Rate limit exceeded, retry later",
		"RATE LIMIT EXCEEDED",
		`{"type":"error","error":{"type":"rate_limit_error"}}`,
		"rate_limit_exceeded: too many requests",
		`{"type":"overloaded_error"}`,
		"Overloaded_Error from the API",
		"you have reached your 5-hour limit",
		`{"status": 429}`,
		"You've hit your usage limit",
		"You have exhausted your daily quota on this model.",
		"RESOURCE_EXHAUSTED: Quota exceeded",
	} {
		if !stdoutRateLimit().MatchString(line) {
			t.Fatalf("test line %q does not match the pattern itself", line)
		}
		if !mayBeRateLimit([]byte(line)) {
			t.Errorf("prefilter drops %q", line)
		}
	}
	if mayBeRateLimit([]byte("flood flood flood")) {
		t.Error("prefilter keeps a line with none of the words")
	}
}

func BenchmarkTextParserFlood(b *testing.B) {
	line := []byte("flood flood flood flood flood flood flood flood flood flood flood flood flood")
	p := &textParser{}
	b.SetBytes(int64(len(line) + 1))
	for b.Loop() {
		p.Line(line)
	}
}
