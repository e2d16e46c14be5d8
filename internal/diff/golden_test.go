package diff

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestAnalyzeGolden analyzes real git diffs from testdata/input and compares
// the facts with testdata/<name>.golden (JSON).
func TestAnalyzeGolden(t *testing.T) {
	t.Parallel()
	inputs, err := filepath.Glob(filepath.Join("testdata", "input", "*.diff"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	o := Options{ProtectedPaths: []string{".github/**", "go.mod"}, Scope: []string{"pkg/**"}}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".diff")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(Analyze(string(b), o), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run go test -update): %v", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("Analyze(%s) (-want +got):\n%s", in, diff)
			}
		})
	}
}
