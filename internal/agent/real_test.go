package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
