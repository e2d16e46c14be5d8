package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
)

// TestClassifyReal judges the real CLIs' recorded runs (testdata/real, one
// stdout, stderr and exit code per run against the model double): each preset's
// table must name what happened as the CLI said it.
func TestClassifyReal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		run    string
		want   evidence.AgentOutcome
		reason string // a substring of the reason: the CLI's own words
	}{
		{"claude-2.1.197-success", evidence.OutcomeSucceeded, ""},
		{"claude-2.1.197-401", evidence.OutcomeAuth, "Invalid API key"},
		{"claude-2.1.197-refuses", evidence.OutcomeRefused, "cannot be used with root/sudo privileges"},
		{"claude-2.1.197-ratelimit-once", evidence.OutcomeSucceeded, ""},
		{"claude-2.1.197-ratelimit-always", evidence.OutcomeRateLimited, ""},
		{"codex-0.169.0-success", evidence.OutcomeSucceeded, ""},
		{"codex-0.169.0-review", evidence.OutcomeSucceeded, ""},
		{"codex-0.169.0-401", evidence.OutcomeAuth, "401 Unauthorized"},
		{"codex-0.169.0-ratelimit-once", evidence.OutcomeSucceeded, ""},
		{"codex-0.169.0-ratelimit-always", evidence.OutcomeRateLimited, ""},
		{"gemini-0.61.0-success", evidence.OutcomeSucceeded, ""},
		{"gemini-0.61.0-401", evidence.OutcomeAuth, "API key not valid"},
		{"gemini-0.61.0-refuses", evidence.OutcomeRefused, "trusted directory"},
		{"gemini-0.61.0-ratelimit-once", evidence.OutcomeSucceeded, ""},
		{"opencode-1.18.33-success", evidence.OutcomeSucceeded, ""},
		{"opencode-1.18.33-401", evidence.OutcomeAuth, "Incorrect API key"},
		{"opencode-1.18.33-ratelimit-once", evidence.OutcomeSucceeded, ""},
		{"copilot-1.0.102-success", evidence.OutcomeSucceeded, ""},
		{"qwen-0.24.4-success", evidence.OutcomeSucceeded, ""},
		{"qwen-0.24.4-401", evidence.OutcomeAuth, "Incorrect API key"},
		{"claude-2.1.197-cut", evidence.OutcomeTransient, "Connection to the API was lost"},
		{"codex-0.169.0-cut", evidence.OutcomeTransient, "stream disconnected before completion"},
		{"claude-2.1.197-usage-limit", evidence.OutcomeRateLimited, "You've hit your session limit · resets 3:06pm (UTC)"},
		{"codex-0.169.0-usage-limit", evidence.OutcomeRateLimited, "hit your usage limit"},
	}
	// The usage limits' resets, read as of their capture (2026-11-27 15:06
	// UTC): Claude Code's rate_limit_event carries the instant (its text the
	// minute); Codex's text the minute, read as its end.
	resets := map[string]time.Time{
		"claude-2.1.197-usage-limit": time.Unix(1795792006, 0).UTC(),
		"codex-0.169.0-usage-limit":  time.Date(2026, 11, 27, 15, 7, 0, 0, time.UTC),
	}
	for _, tt := range tests {
		t.Run(tt.run, func(t *testing.T) {
			t.Parallel()
			base := filepath.Join("testdata", "real", tt.run)
			stdout := readFile(t, base+".stdout.jsonl")
			stderr := readFile(t, base+".stderr.txt")
			exit, err := strconv.Atoi(strings.TrimSpace(string(readFile(t, base+".exit-code"))))
			if err != nil {
				t.Fatal(err)
			}
			p := mustLookup(t, strings.SplitN(tt.run, "-", 2)[0])
			parser, err := NewParser(p.Format)
			if err != nil {
				t.Fatal(err)
			}
			captured := clock(func() time.Time { return time.Date(2026, 11, 27, 15, 6, 3, 0, time.UTC) })
			switch q := parser.(type) {
			case *claudeParser:
				q.clock = captured
			case *codexParser:
				q.clock = captured
			}
			for line := range bytes.SplitSeq(stdout, []byte("\n")) {
				parser.Line(line)
			}
			if sp, ok := parser.(StderrParser); ok {
				for line := range bytes.SplitSeq(stderr, []byte("\n")) {
					sp.StderrLine(line)
				}
			}
			tail := stderr[max(len(stderr)-tailBytes, 0):]
			c := Classify(p, exit, parser.Result(), tail, int64(len(stdout)+len(stderr)))
			if c.Outcome != tt.want || !strings.Contains(c.Reason, tt.reason) {
				t.Errorf("Classify() = %+v, want %s with a reason naming %q", c, tt.want, tt.reason)
			}
			if !c.ResetAt.Equal(resets[tt.run]) {
				t.Errorf("reset at %v, want %v", c.ResetAt, resets[tt.run])
			}
			if c.Outcome.Fatal() && c.Fix == "" {
				t.Errorf("%s without a fix", c.Outcome)
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
