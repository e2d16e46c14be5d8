package decide

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestRunGolden(t *testing.T) {
	t.Parallel()
	inputs, err := filepath.Glob("testdata/decide/*.yaml")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".yaml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseCheck(data)
			if err != nil {
				t.Fatalf("ParseCheck: %v", err)
			}
			got, err := New(DefaultPolicy()).DecideCheck(c).YAML()
			if err != nil {
				t.Fatalf("YAML: %v", err)
			}
			out := bytes.NewBuffer(got)
			golden := strings.TrimSuffix(in, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update): %v", err)
			}
			if diff := cmp.Diff(string(want), out.String()); diff != "" {
				t.Errorf("DecideCheck() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAssessmentTrend: the decision document's trend compares the last two
// iterations' quality, from the second iteration on.
func TestAssessmentTrend(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	tests := []struct {
		name string
		evs  []evidence.Iteration
		want string
	}{
		{"one iteration", []evidence.Iteration{iter(1, "A", "B")}, "first"},
		{"two, better", []evidence.Iteration{iter(1, "A", "B"), iter(2, "A")}, "improving"},
		{"two, the same", []evidence.Iteration{iter(1, "A"), iter(2, "B")}, "flat"},
		{"two, worse", []evidence.Iteration{iter(1, "A"), iter(2, "A", "B")}, "declining"},
		{"three: the last two count", []evidence.Iteration{iter(1, "A", "B", "C"), iter(2, "A"), iter(3, "A", "B")}, "declining"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := gated()
			n := len(tt.evs)
			st := past(p, spec, tt.evs[:n-1])
			d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: tt.evs[n-1], Budget: done(n)})
			a := d.Document.Decision.Assessment
			if a == nil || a.Trend != tt.want || len(a.QualityTrend) != n {
				t.Errorf("assessment %+v, want trend %s over %d points", a, tt.want, n)
			}
		})
	}
}
