package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

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
	for _, line := range []string{"flood flood flood", "the API is overloaded, RESOURCE EXHAUSTED"} {
		if stdoutRateLimit().MatchString(line) {
			t.Fatalf("test line %q matches the pattern", line)
		}
		if mayBeRateLimit([]byte(line)) {
			t.Errorf("prefilter keeps %q, which has none of the words (overloaded and RESOURCE_EXHAUSTED match with an underscore only)", line)
		}
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

// TestStillFormatsHaveNoLive checks what the watch relies on to skip reading
// a still format's Live after each line: whatever it reads (every recorded
// output of every CLI, stdout and stderr, rate-limit notices and retries
// among them), its parser's Live stays the zero value.
func TestStillFormatsHaveNoLive(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/real/*.*")
	more, _ := filepath.Glob("testdata/*.jsonl")
	files = append(files, more...)
	for name, f := range formats {
		if !f.still {
			continue
		}
		p := f.new()
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for line := range bytes.SplitSeq(b, []byte("\n")) {
				p.Line(line)
				if l := p.Live(); l != (Live{}) {
					t.Fatalf("%s: after %s's line %q, Live is %+v: the format is not still", name, file, line, l)
				}
			}
		}
	}
}
