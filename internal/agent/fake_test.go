package agent

import (
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/google/go-cmp/cmp"
)

// TestFakeTranscripts pins what the end-to-end fixtures in testdata/fake parse
// to, so tests that make the fake agent print them can rely on these numbers.
func TestFakeTranscripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, format string
		want         Outcome
	}{
		{"fake/claude-ok.jsonl", FormatClaudeStream, Outcome{
			Usage: evidence.Usage{InputTokens: 1500, OutputTokens: 155, CacheReadTokens: 4000, CacheWriteTokens: 4500, TokensKnown: true,
				CostUSD: 0.0421, CostKnown: true, Turns: 3, Model: "claude-sonnet-4-5", SessionID: "fake-claude-0001"},
			Result: "Fixed Title to keep short words lower case. All tests pass.\n\n<promise>DONE</promise>", Terminal: true}},
		{"fake/codex-ok.jsonl", FormatCodex, Outcome{
			Usage:  evidence.Usage{InputTokens: 5000, OutputTokens: 800, CacheReadTokens: 15000, TokensKnown: true, SessionID: "fake-codex-0001"},
			Result: "Fixed Title; go test passes.", Terminal: true}},
		{"fake/gemini-ok.json", FormatGeminiJSON, Outcome{
			Usage:  evidence.Usage{InputTokens: 20000, OutputTokens: 1000, CacheReadTokens: 10000, TokensKnown: true, Model: "gemini-2.5-pro", SessionID: "fake-gemini-0001"},
			Result: "Fixed Title; go test passes.", Terminal: true,
			Models: []ModelTokens{{Model: "gemini-2.5-pro", Input: 20000, Output: 1000, CacheRead: 10000}}}},
		{"fake/gemini-stream-ok.jsonl", FormatGeminiStream, Outcome{
			Usage:  evidence.Usage{InputTokens: 20000, OutputTokens: 1000, CacheReadTokens: 10000, TokensKnown: true, Model: "gemini-2.5-pro", SessionID: "fake-gemini-0002"},
			Result: "Fixed Title; go test passes.", Terminal: true,
			Models: []ModelTokens{{Model: "gemini-2.5-pro", Input: 20000, Output: 1000, CacheRead: 10000}}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			p, _ := NewParser(tt.format)
			feed(t, p, tt.file, false)
			if diff := cmp.Diff(tt.want, p.Result()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
