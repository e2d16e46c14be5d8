package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fuzzParser feeds arbitrary bytes, line by line, to a fresh parser of format
// (stdout and stderr) and checks the outcome stays sane: no panic, no negative
// token count or cost from input without negative numbers, bounded result text.
func fuzzParser(f *testing.F, format string, seeds ...string) {
	f.Helper()
	for _, s := range seeds {
		b, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"result","is_error":true,"api_error_status":429,"result":"Claude AI usage limit reached|99999999999"}`))
	f.Add([]byte("{\"type\":\"assistant\",\"message\":{\"id\":\"a\",\"usage\":{\"input_tokens\":1e30}}}\n{\"type\""))
	f.Add([]byte("{\"type\":\"assistant\",\"message\":{\"id\":\"a\",\"usage\":{\"input_tokens\":9223372036854775807,\"output_tokens\":9223372036854775807}}}\n" +
		"{\"type\":\"assistant\",\"message\":{\"id\":\"b\",\"usage\":{\"input_tokens\":9223372036854775807}}}\n" +
		"{\"type\":\"result\",\"usage\":{\"input_tokens\":9223372036854775807,\"output_tokens\":9223372036854775807},\"total_cost_usd\":1e308}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := NewParser(format)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			p.Line(line)
			if sp, ok := p.(StderrParser); ok {
				sp.StderrLine(line)
			}
		}
		out := p.Result()
		if len(out.Result) > maxResult+textTail {
			t.Errorf("result text of %d bytes is not bounded", len(out.Result))
		}
		if len(out.Reason) > 400 {
			t.Errorf("reason of %d bytes is not one line", len(out.Reason))
		}
		// Without a minus sign the input holds no negative number: a negative
		// count or cost can only come from an overflow or a bad subtraction.
		u := out.Usage
		if !bytes.ContainsRune(data, '-') &&
			(u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.CacheWriteTokens < 0 || u.TotalTokens() < 0 || u.CostUSD < 0 || u.Turns < 0) {
			t.Errorf("negative usage from input without a minus sign: %+v", u)
		}
	})
}

func FuzzClaudeStream(f *testing.F) {
	fuzzParser(f, FormatClaudeStream, "fake/claude-ok.jsonl", "claude-stream-json-6-auth-error.jsonl", "written/claude-rate-limit-rejected.jsonl")
}

func FuzzClaudeJSON(f *testing.F) {
	fuzzParser(f, FormatClaudeJSON, "claude-json-1-error_max_turns.json")
}

func FuzzAmpStream(f *testing.F) { fuzzParser(f, FormatAmpStream, "amp-stream-json-1-docs.jsonl") }

func FuzzCodex(f *testing.F) {
	fuzzParser(f, FormatCodex, "codex-exec-json-1.jsonl", "codex-exec-json-4-failure.jsonl", "written/codex-rate-limit.jsonl")
}

func FuzzGeminiJSON(f *testing.F) {
	fuzzParser(f, FormatGeminiJSON, "gemini-json-1.json", "gemini-json-2-auth-error-stderr.json")
}

func FuzzGeminiStream(f *testing.F) {
	fuzzParser(f, FormatGeminiStream, "gemini-stream-json-docs-ILLUSTRATIVE.jsonl", "fake/gemini-stream-ok.jsonl")
}

func FuzzCursor(f *testing.F) { fuzzParser(f, FormatCursorStream, "cursor-stream-json-1.jsonl") }
func FuzzOpencode(f *testing.F) {
	fuzzParser(f, FormatOpencode, "opencode-json-1.jsonl", "written/opencode-error.jsonl")
}
func FuzzAider(f *testing.F) {
	fuzzParser(f, FormatAider, "aider-analytics-log-1.jsonl", "written/aider-rate-limit.txt")
}
func FuzzGoose(f *testing.F)   { fuzzParser(f, FormatGoose, "written/goose-stream.jsonl") }
func FuzzCopilot(f *testing.F) { fuzzParser(f, FormatCopilot, "written/copilot-failed.jsonl") }
func FuzzText(f *testing.F)    { fuzzParser(f, FormatText, "written/text-usage-limit.txt") }
