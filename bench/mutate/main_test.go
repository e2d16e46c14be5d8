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
	if err := run(t.Context(), &out, []string{"p"}, DefaultKinds, 0, 1, time.Minute, 1, false, false, true, "", 0, nil, nil); err != nil {
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

func TestParseKnown(t *testing.T) {
	t.Parallel()
	list := "a comment\n-- p/p.go: Less is <= --\nreturn a < b\n-- => --\nreturn a <= b\n-- p/q.go: a line dropped --\n\tx++\n-- => --\n"
	ms, err := parseKnown([]byte(list))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mutant{
		{File: filepath.FromSlash("p/p.go"), Old: "return a < b\n", New: "return a <= b\n", Kind: "known", Name: "Less is <="},
		{File: filepath.FromSlash("p/q.go"), Old: "\tx++\n", New: "", Kind: "known", Name: "a line dropped"},
	}
	if !slices.Equal(ms, want) {
		t.Errorf("parseKnown\n got %+v\nwant %+v", ms, want)
	}
	for _, bad := range []string{
		"-- p/p.go: odd --\nx\n",                     // no replacement
		"-- p/p.go --\nx\n-- => --\ny\n",             // no description
		"-- p/p.go: two --\nx\n-- p/p.go: y --\ny\n", // the second is not "=>"
		"-- p/p.go: empty --\n\n-- => --\ny\n",       // nothing to replace
	} {
		if _, err := parseKnown([]byte(bad)); err == nil {
			t.Errorf("parseKnown(%q) took it", bad)
		}
	}
}

func TestPlace(t *testing.T) {
	t.Parallel()
	src := []byte("package p\n\nfunc f() {\n\treturn a < b\n}\n")
	m := Mutant{File: "p.go", Old: "a < b", New: "a <= b", Name: "x"}
	if err := place(&m, src); err != nil || m.Line != 4 || m.Col != 9 || string(src[m.Off:m.Off+len(m.Old)]) != m.Old {
		t.Errorf("place = %+v, %v; want line 4, column 9", m, err)
	}
	for _, old := range []string{"a > b", "\n"} { // not there; more than once
		m := Mutant{File: "p.go", Old: old, Name: "x"}
		if err := place(&m, src); err == nil {
			t.Errorf("place(%q) took it", old)
		}
	}
}

// TestKnownListIsCurrent: every known mutant's text is where the list says,
// once, and the mutated file still parses: a change that moves the code
// makes the list be updated, not silently skipped.
func TestKnownListIsCurrent(t *testing.T) {
	t.Chdir("../..")
	ms, err := loadKnown(KnownFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 {
		t.Fatal("no known mutants")
	}
	for _, m := range ms {
		src, err := os.ReadFile(m.File)
		if err != nil {
			t.Fatal(err)
		}
		mut, err := Apply(src, m)
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		if _, err := parser.ParseFile(token.NewFileSet(), m.File, mut, 0); err != nil {
			t.Errorf("%s does not parse: %v", m, err)
		}
	}
}

// TestRunKnown: with known mutants the tool tests them, not a sample, and
// fails naming one the tests do not kill.
func TestRunKnown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test three times")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module tiny\n\ngo 1.24\n",
		"p/p.go":      "package p\n\n// Less is a < b.\nfunc Less(a, b int) bool {\n\treturn a < b\n}\n",
		"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestLess(t *testing.T) {\n\tif !Less(1, 3) || Less(3, 1) {\n\t\tt.Fatal(\"Less\")\n\t}\n}\n",
		"known.txtar": "-- p/p.go: Less is always true --\n\treturn a < b\n-- => --\n\treturn true\n-- p/p.go: Less is <= --\nfunc Less(a, b int) bool {\n\treturn a < b\n-- => --\nfunc Less(a, b int) bool {\n\treturn a <= b\n",
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
	known, err := loadKnown("known.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err = run(t.Context(), &out, knownDirs(known, nil), DefaultKinds, 1, 1, time.Minute, 1, false, true, true, "", 0, nil, known)
	if err == nil || !strings.Contains(err.Error(), "1 of the known mutants were not killed") || !strings.Contains(err.Error(), "p/p.go: Less is <=") {
		t.Errorf("run: %v", err)
	}
	if !strings.Contains(out.String(), "KILLED") || !strings.Contains(out.String(), "LIVED      p.go:4:1 known: Less is <=") ||
		!strings.Contains(out.String(), "| p | 2 | 2 | 1 | 1 | 0 | 50% |") {
		t.Errorf("output:\n%s", out.String())
	}
}
