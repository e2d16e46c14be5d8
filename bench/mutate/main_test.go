package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const sample = `package p

import "strings"

func f(a, b int, s string) bool {
	a++
	if a < b && s == "x"+s {
		return -a > 2
	}
	return strings.HasPrefix(s, "y") || 1.5 != float64(b)*2
}
`

func TestMutants(t *testing.T) {
	t.Parallel()
	ms, err := Mutants("p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Old+"→"+m.New)
		mut, err := Apply([]byte(sample), m)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", mut, 0); err != nil {
			t.Errorf("%s does not parse: %v", m, err)
		}
		if string(mut) == sample {
			t.Errorf("%s changes nothing", m)
		}
	}
	want := []string{"++→--", "&&→||", "<→<=", "<→>=", "==→!=", ">→>=", ">→<=", "-→ ", "2→3",
		"||→&&", "!=→==", "1.5→15", "*→/", "2→3"}
	if !slices.Equal(got, want) {
		t.Errorf("mutants\n got %q\nwant %q", got, want)
	}
}

func TestApplyRefusesAStaleMutant(t *testing.T) {
	t.Parallel()
	if _, err := Apply([]byte("a < b"), Mutant{Off: 2, Old: ">", New: ">="}); err == nil {
		t.Error("Apply put a mutant where its operator is not")
	}
}

func TestSampleIsStable(t *testing.T) {
	t.Parallel()
	ms := make([]Mutant, 100)
	for i := range ms {
		ms[i].Line = i
	}
	a, b := Sample(ms, 10, 7), Sample(ms, 10, 7)
	if len(a) != 10 || !slices.Equal(a, b) {
		t.Errorf("samples differ or have the wrong size: %v, %v", a, b)
	}
	if !slices.IsSortedFunc(a, func(x, y Mutant) int { return x.Line - y.Line }) {
		t.Error("sample not in file order")
	}
	if len(Sample(ms, 0, 1)) != 100 || len(Sample(ms, 500, 1)) != 100 {
		t.Error("n ≤ 0 or n ≥ len should take all")
	}
}

// TestRunKillsAndSpares runs the whole tool on a tiny module: a mutant the test
// catches is killed, one it cannot see lives, one in code no test runs lives
// without being tested, and the tree is left untouched.
func TestRunKillsAndSpares(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test three times")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module tiny\n\ngo 1.24\n",
		"p/p.go":      "package p\n\n// Less is a < b.\nfunc Less(a, b int) bool { return a < b }\n\n// Diff is a - b.\nfunc Diff(a, b int) int { return a - b }\n",
		"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestLess(t *testing.T) {\n\tif !Less(1, 3) || Less(3, 1) {\n\t\tt.Fatal(\"Less\")\n\t}\n}\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var out strings.Builder
	if err := run(t.Context(), &out, []string{"p"}, DefaultKinds, 0, 1, time.Minute, 1, false, false, true, "", 0, nil); err != nil {
		t.Fatal(err)
	}
	// < → <= lives (the test never compares equal numbers), < → >= is killed.
	// Diff's a - b → a + b is in code no test runs.
	if !strings.Contains(out.String(), `LIVED      p.go:4:37 boundary "<" → "<="`) ||
		!strings.Contains(out.String(), `NOT COVERED p.go:7:36 arithmetic "-" → "+"`) ||
		!strings.Contains(out.String(), "| p | 3 | 3 | 1 | 2 | 0 | 33% |") {
		t.Errorf("output:\n%s", out.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "p/p.go")); string(b) != files["p/p.go"] {
		t.Error("the source file was changed")
	}
}

func TestCovered(t *testing.T) {
	t.Parallel()
	profile := `mode: set
m/p/p.go:3.30,5.2 1 1
m/p/p.go:7.25,9.3 2 0
m/p/p.go:9.3,11.2 1 1
m/p/q.go:1.1,2.1 1 0
`
	blocks, err := parseCoverProfile(strings.NewReader(profile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file      string
		line, col int
		want      bool
	}{
		{"p.go", 4, 1, true},   // inside a block that ran
		{"p.go", 3, 30, true},  // its first column
		{"p.go", 8, 10, false}, // inside a block that never ran
		{"p.go", 7, 25, false},
		{"p.go", 9, 3, true},  // on the edge of a block that ran and one that did not
		{"p.go", 20, 1, true}, // outside every block: not known, so tested
		{"q.go", 1, 5, false}, // same lines, other file
	} {
		if got := covered(blocks, Mutant{File: "/x/" + tc.file, Line: tc.line, Col: tc.col}); got != tc.want {
			t.Errorf("%s:%d:%d covered = %v, want %v", tc.file, tc.line, tc.col, got, tc.want)
		}
	}
	if _, err := parseCoverProfile(strings.NewReader("mode: set\ngarbage\n")); err == nil {
		t.Error("a malformed profile was accepted")
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		out  string
		want time.Duration
	}{
		{"ok  \tgithub.com/x/loop\t0.250s\n", 20 * time.Second},
		{"ok  \tgithub.com/x/proc\t5.159s\n", 118 * time.Second},
		{"ok  \tgithub.com/x/p\t0.020s\tcoverage: 81.2% of statements\n", 15 * time.Second},
		{"FAIL\tgithub.com/x/p\t0.020s\n", 0},
	} {
		if got := runTimeout([]byte(tc.out)); got != tc.want {
			t.Errorf("runTimeout(%q) = %s, want %s", tc.out, got, tc.want)
		}
	}
}
