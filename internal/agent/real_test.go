package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The real CLIs' successful runs against the model double (testdata/real, see
// its PROVENANCE.md): the usage read is exactly what the double served — every
// token, cached ones included, counted once — and the run reads as finished.
func TestRealTranscriptsUsage(t *testing.T) {
	cases := []struct {
		file           string
		preset         string
		tokens, cached int64 // what the double served and the CLI reports
	}{
		// 1200 (200 cached) + 40, then 1500 (1000 cached) + 12.
		{"claude-2.1.197-success", "claude", 2752, 1200},
		{"codex-0.169.0-success", "codex", 2752, 1200},
		// gemini also counts its routing request: 10 + 2.
		{"gemini-0.61.0-success", "gemini", 2764, 1200},
		{"opencode-1.18.33-success", "opencode", 2752, 1200},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p, err := Lookup(c.preset)
			if err != nil {
				t.Fatal(err)
			}
			parser, err := NewParser(p.Format)
			if err != nil {
				t.Fatal(err)
			}
			feed(t, parser, filepath.Join("real", c.file+".stdout.jsonl"), false)
			if sp, ok := parser.(StderrParser); ok {
				feed(t, sp.(Parser), filepath.Join("real", c.file+".stderr.txt"), true)
			}
			out := parser.Result()
			if !out.Usage.TokensKnown || out.Usage.TotalTokens() != c.tokens || out.Usage.CacheReadTokens != c.cached {
				t.Errorf("usage %+v: want %d tokens, %d of them cached", out.Usage, c.tokens, c.cached)
			}
			if out.IsError || out.RateLimited || out.Transient {
				t.Errorf("a successful run read as failed: %+v", out)
			}
			code, err := os.ReadFile(filepath.Join("testdata", "real", c.file+".exit-code"))
			if err != nil || strings.TrimSpace(string(code)) != "0" {
				t.Errorf("exit code %q (%v): want 0", code, err)
			}
		})
	}
}
