package review

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		out     string
		want    evidence.Review
		wantErr string // substring of the error; "" for none
	}{
		{name: "plain", out: `{"verdict":"approve","score":9,"tags":[],"findings":[]}`,
			want: evidence.Review{Verdict: "approve", Score: 9}},
		{name: "fenced after prose", out: "Here is my review.\n```json\n{\"verdict\": \"reject\", \"score\": 2, \"tags\": [\"security\"], \"summary\": \"leaks the key\"}\n```\nThanks!",
			want: evidence.Review{Verdict: "reject", Score: 2, Tags: []string{"security"}, Summary: "leaks the key"}},
		{name: "last valid wins", out: `{"verdict":"approve","score":9} then on reflection {"verdict":"request_changes","score":5}`,
			want: evidence.Review{Verdict: "request_changes", Score: 5}},
		{name: "invalid after valid keeps the valid one", out: `{"verdict":"approve","score":9} {"verdict":"maybe","score":1}`,
			want: evidence.Review{Verdict: "approve", Score: 9}},
		{name: "score clamped, confidence clamped, string score", out: `{"verdict":"APPROVED","score":"12/10","confidence":3}`,
			want: evidence.Review{Verdict: "approve", Score: 10, Confidence: 1}},
		{name: "negative score clamped", out: `{"verdict":"needs revision","score":-3}`,
			want: evidence.Review{Verdict: "request_changes", Score: 0}},
		{name: "tags normalized, unknown kept", out: `{"verdict":"reject","score":1,"tags":["Security","scope-creep","security","vibes"]}`,
			want: evidence.Review{Verdict: "reject", Score: 1, Tags: []string{"security", "scope_creep", "vibes"}}},
		{name: "findings with aliases", out: `{"verdict":"request_changes","score":5,"findings":[{"severity":"High","path":"a.go:7","message":"nil deref on empty input","fix":"check len"}]}`,
			want: evidence.Review{Verdict: "request_changes", Score: 5, Findings: []evidence.ReviewFinding{
				{ID: "nil-deref-on-empty-input", Severity: "major", File: "a.go", Line: 7, Message: "nil deref on empty input", FixHint: "check len"}}}},
		{name: "nested in a JSON event", out: `{"type":"item.completed","item":{"type":"agent_message","text":"{\"verdict\":\"approve\",\"score\":7}"}}`,
			want: evidence.Review{Verdict: "approve", Score: 7}},
		{name: "nested object", out: `{"review":{"verdict":"reject","score":0}}`,
			want: evidence.Review{Verdict: "reject", Score: 0}},
		{name: "trailing comma repaired", out: "```json\n{\"verdict\": \"approve\", \"score\": 8,}\n```",
			want: evidence.Review{Verdict: "approve", Score: 8}},
		{name: "unknown verdict", out: `{"verdict":"maybe","score":5}`, wantErr: `verdict "maybe"`},
		{name: "missing score", out: `{"verdict":"approve"}`, wantErr: "score missing"},
		{name: "bad score", out: `{"verdict":"approve","score":"great"}`, wantErr: `score "great"`},
		{name: "bad severity", out: `{"verdict":"request_changes","score":5,"findings":[{"severity":"urgent","msg":"x"}]}`, wantErr: `finding 1 severity "urgent"`},
		{name: "finding without message", out: `{"verdict":"request_changes","score":5,"findings":[{"severity":"minor"}]}`, wantErr: `finding 1 has no "msg"`},
		{name: "tags not a list", out: `{"verdict":"approve","score":8,"tags":"security"}`, wantErr: "tags"},
		{name: "no JSON", out: "Looks good to me!", wantErr: "no JSON object"},
		{name: "JSON without verdict", out: `{"score": 5}`, wantErr: "no JSON object"},
		{name: "empty", out: "", wantErr: "no JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse() err = %v, want one containing %q", err, tt.wantErr)
				}
				if got.Verdict != evidence.VerdictUnknown {
					t.Errorf("Parse() on error: verdict %q, want unknown", got.Verdict)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse() err = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCannedOutputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		verdict string
		score   float64
		tags    []string
		nFind   int
		noVerd  bool
	}{
		{file: "prose-then-fence.txt", verdict: "request_changes", score: 4, tags: []string{"test_tampering", "scope_creep"}, nFind: 2},
		{file: "claude-stream.jsonl", verdict: "approve", score: 8.5},
		{file: "refusal.txt", noVerd: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", "outputs", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(string(b))
			if tt.noVerd {
				if !errors.Is(err, ErrNoVerdict) {
					t.Fatalf("Parse() err = %v, want ErrNoVerdict", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Verdict != tt.verdict || got.Score != tt.score || len(got.Findings) != tt.nFind || !cmp.Equal(got.Tags, tt.tags) {
				t.Errorf("Parse() = %+v", got)
			}
		})
	}
	b, _ := os.ReadFile(filepath.Join("testdata", "outputs", "prose-then-fence.txt"))
	r, _ := Parse(string(b))
	want := []evidence.ReviewFinding{
		{ID: "div-test-skipped", Severity: "blocker", File: "pkg/calc/calc_test.go", Line: 12, Message: "TestDiv is skipped and its assertion removed", FixHint: "Update TestDiv to check both the result and ErrDivZero"},
		{ID: "comment-should-say-what-errdivzero-means", Severity: "nit", File: "pkg/calc/calc.go", Line: 5, Message: "Comment should say what ErrDivZero means"},
	}
	if diff := cmp.Diff(want, r.Findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func TestUnknownTags(t *testing.T) {
	t.Parallel()
	r := evidence.Review{Tags: []string{"security", "vibes", "needs_human", "perf"}}
	if diff := cmp.Diff([]string{"vibes", "perf"}, UnknownTags(r)); diff != "" {
		t.Errorf("UnknownTags (-want +got):\n%s", diff)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"verdict":"approve","score":9}`, "```json\n{\"verdict\":\"reject\",\"score\":1,\"findings\":[{\"severity\":\"major\",\"msg\":\"x\",\"line\":1e308}]}\n```",
		`{"type":"result","result":"{\"verdict\":\"approve\",\"score\":\"7\"}"}`, `{{{{{{{{`, `{"verdict":{"a":[1,2,{"verdict":null}]},"score":1}`,
		`{"verdict":"approve","score":9,}`, strings.Repeat(`{"a":`, 200),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		start := time.Now()
		r, err := Parse(out)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("Parse took %v on %d bytes", d, len(out))
		}
		if err != nil {
			if r.Verdict != evidence.VerdictUnknown {
				t.Fatalf("error %v with verdict %q", err, r.Verdict)
			}
			return
		}
		switch r.Verdict {
		case evidence.VerdictApprove, evidence.VerdictRequestChanges, evidence.VerdictReject:
		default:
			t.Fatalf("verdict %q", r.Verdict)
		}
		if r.Score < 0 || r.Score > 10 || r.Confidence < 0 || r.Confidence > 1 {
			t.Fatalf("score %v confidence %v out of range", r.Score, r.Confidence)
		}
		for _, fd := range r.Findings {
			if normSeverity(fd.Severity) != fd.Severity || fd.Message == "" {
				t.Fatalf("finding %+v", fd)
			}
		}
	})
}
