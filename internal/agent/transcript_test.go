package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/google/go-cmp/cmp"
)

// TestTranscriptUsageIsWhatARunCounts reads back the agent.log of a run and
// gets the spend the run counted: reported, estimated from the price table
// (the CLI tells tokens only, or its transcript was cut before its result)
// or unknown. An attempt recovered from its transcript after a crash counts
// what the same attempt cut by Ctrl-C counts.
func TestTranscriptUsageIsWhatARunCounts(t *testing.T) {
	t.Parallel()
	whole, err := os.ReadFile(fake("claude-ok.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(whole), "\n")
	dir := t.TempDir()
	partial := filepath.Join(dir, "partial.jsonl") // the result line never came
	if err := os.WriteFile(partial, []byte(strings.Join(lines[:3], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, format, transcript string
		estimated                bool
	}{
		{"claude, cost reported", FormatClaudeStream, fake("claude-ok.jsonl"), false},
		{"claude, cut before its result", FormatClaudeStream, partial, true},
		{"codex, tokens only", FormatCodex, fake("codex-ok.jsonl"), true},
	}
	prices := Prices{Default: Price{Input: 1, Output: 10, CacheRead: 0.1, CacheWrite: 2}}
	r := &Runner{Prices: &prices}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p, env := fakePreset(t, tt.format, PromptStdin, "printfile:"+tt.transcript)
			log := filepath.Join(dir, "agent.log")
			res, err := r.Run(t.Context(), Request{Preset: p, Prompt: "x", Dir: dir, Env: env, LogPath: log})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Usage.CostKnown || res.Usage.CostEstimated != tt.estimated {
				t.Fatalf("the run counted %+v, want a known cost, estimated %v", res.Usage, tt.estimated)
			}
			if diff := cmp.Diff(res.Usage, r.TranscriptUsage(p, log)); diff != "" {
				t.Errorf("TranscriptUsage is not what the run counted (-run +transcript):\n%s", diff)
			}
		})
	}
	if u := r.TranscriptUsage(Preset{Format: FormatClaudeStream}, filepath.Join(dir, "missing.log")); u != (evidence.Usage{}) {
		t.Errorf("a missing transcript tells %+v, want nothing", u)
	}
}
