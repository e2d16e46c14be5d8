package house

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// synthetic is a table of three layers for the tests of the pure parts.
func synthetic(t *testing.T) table {
	t.Helper()
	tab, err := parseTable(strings.NewReader(`
# a comment
1 top
a
b planned # may come
2 middle floor
m
n
3 leaves
z
`))
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestParseTable(t *testing.T) {
	t.Parallel()
	tab := synthetic(t)
	if diff := cmp.Diff([]string{"top", "middle floor", "leaves"}, tab.names); diff != "" {
		t.Errorf("layer names (-want +got):\n%s", diff)
	}
	want := map[string]place{"a": {1, false}, "b": {1, true}, "m": {2, false}, "n": {2, false}, "z": {3, false}}
	if diff := cmp.Diff(want, tab.pkgs, cmp.AllowUnexported(place{})); diff != "" {
		t.Errorf("places (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ name, in, err string }{
		{"no layers", "# nothing\n", "no layers"},
		{"a package first", "a\n1 top\n", "before the first layer"},
		{"a layer skipped", "1 top\na\n3 bottom\n", `want "2 name"`},
		{"a layer without a name", "1\n", `want "1 name"`},
		{"a package twice", "1 top\na\n2 low\na\n", "a is already in layer 1 top"},
		{"a word not planned", "1 top\na soon\n", `"planned" or nothing`},
	} {
		if _, err := parseTable(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: parseTable: %v, want an error with %q", tc.name, err, tc.err)
		}
	}
}

func TestParseEdges(t *testing.T) {
	t.Parallel()
	got, err := parseEdges(strings.NewReader("# known\na → b\n\n  m->n  # ascii\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]edge{{"a", "b"}, {"m", "n"}}, got, cmp.AllowUnexported(edge{})); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	for _, in := range []string{"a\n", "a →\n", "→ b\n", "a b → c\n", "a → b → c\n"} {
		if _, err := parseEdges(strings.NewReader(in)); err == nil {
			t.Errorf("parseEdges(%q) took it; want an error", in)
		}
	}
}

func TestUpward(t *testing.T) {
	t.Parallel()
	tab := synthetic(t)
	for _, tc := range []struct {
		name string
		g    graph
		want []edge
	}{
		{"down and sideways", graph{"a": {"m", "z", "b"}, "m": {"n", "z"}, "n": {"m"}}, nil},
		{"one floor up", graph{"m": {"a"}}, []edge{{"m", "a"}}},
		{"two floors up, sorted", graph{"z": {"m", "a"}, "m": {"z", "a"}}, []edge{{"m", "a"}, {"z", "a"}, {"z", "m"}}},
		{"a planned package counts", graph{"n": {"b"}}, []edge{{"n", "b"}}},
		{"packages the table lacks are left to the check for them", graph{"x": {"a"}, "z": {"x"}}, nil},
	} {
		if diff := cmp.Diff(tc.want, upward(tc.g, tab), cmp.AllowUnexported(edge{})); diff != "" {
			t.Errorf("%s: upward (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestGaps(t *testing.T) {
	t.Parallel()
	tab := synthetic(t)
	g := graph{"a": nil, "m": nil, "n": nil, "x": nil, "bench/y": nil, "bench": nil}
	missing, gone := gaps(g, tab)
	if diff := cmp.Diff([]string{"x"}, missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	// b is planned: missing from the tree is what it may be.
	if diff := cmp.Diff([]string{"z"}, gone); diff != "" {
		t.Errorf("gone (-want +got):\n%s", diff)
	}
}

func TestBenchImports(t *testing.T) {
	t.Parallel()
	g := graph{
		"internal/x":      {"bench/harness", "internal/y"},
		"cmd/agentloop":   {"bench"},
		"bench/scenarios": {"bench/harness", "internal/x"},
		"internal/z":      {"benchmark"}, // not under bench/
	}
	want := []edge{{"cmd/agentloop", "bench"}, {"internal/x", "bench/harness"}}
	if diff := cmp.Diff(want, benchImports(g), cmp.AllowUnexported(edge{})); diff != "" {
		t.Errorf("benchImports (-want +got):\n%s", diff)
	}
}

func TestRatchet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		found, known        []edge
		wantAdded, wantGone []edge
	}{
		{"as listed", []edge{{"m", "a"}}, []edge{{"m", "a"}}, nil, nil},
		{"a new one", []edge{{"m", "a"}, {"z", "a"}}, []edge{{"m", "a"}}, []edge{{"z", "a"}}, nil},
		{"one fixed: its line is stale", nil, []edge{{"m", "a"}}, nil, []edge{{"m", "a"}}},
		{"the direction matters", []edge{{"a", "m"}}, []edge{{"m", "a"}}, []edge{{"a", "m"}}, []edge{{"m", "a"}}},
	} {
		added, stale := ratchet(tc.found, tc.known)
		if diff := cmp.Diff(tc.wantAdded, added, cmp.AllowUnexported(edge{})); diff != "" {
			t.Errorf("%s: added (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.wantGone, stale, cmp.AllowUnexported(edge{})); diff != "" {
			t.Errorf("%s: stale (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestLongestChain(t *testing.T) {
	t.Parallel()
	all := func(string) bool { return true }
	for _, tc := range []struct {
		name string
		g    graph
		keep func(string) bool
		want []string
	}{
		{"empty", graph{}, all, nil},
		{"one package", graph{"a": nil}, all, []string{"a"}},
		{"both ends count", graph{"a": {"b"}, "b": nil}, all, []string{"a", "b"}},
		{"the longer branch", graph{"a": {"b", "c"}, "b": {"z"}, "c": {"d"}, "d": {"z"}, "z": nil}, all, []string{"a", "c", "d", "z"}},
		{"the longest starts anywhere", graph{"a": {"z"}, "m": {"n"}, "n": {"o"}, "o": nil, "z": nil}, all, []string{"m", "n", "o"}},
		{"a tie goes to the first by name", graph{"a": {"c", "b"}, "b": nil, "c": nil}, all, []string{"a", "b"}},
		{"left out packages break the chain", graph{"a": {"bench/x"}, "bench/x": {"c"}, "c": {"d"}, "d": nil}, func(p string) bool { return !isBench(p) }, []string{"c", "d"}},
		{"a cycle stays finite", graph{"a": {"b"}, "b": {"a"}}, all, []string{"a", "b"}},
	} {
		if diff := cmp.Diff(tc.want, longestChain(tc.g, tc.keep)); diff != "" {
			t.Errorf("%s: longestChain (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestUsedNames counts the names one file uses of the packages it imports,
// and TestSingleName picks the imports for one name out of them.
func TestUsedNames(t *testing.T) {
	t.Parallel()
	src := `package p

import (
	"fmt"
	"mod/internal/one"
	two "mod/internal/second"
	_ "mod/internal/blank"
	. "mod/internal/dot"
	"mod/internal/many"
)

var _ one.T = one.T{}

func f(x two.A) {
	fmt.Println(two.B, Dotted)
	many.X(); many.Y(); many.Z.Field()
	{
		one := struct{ Field int }{}
		_ = one.Field // a local shadows the import: Field is no name of package one
	}
}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	pkgOf := func(path string) (string, bool) { return strings.CutPrefix(path, "mod/") }
	name := map[string]string{"internal/one": "one", "internal/second": "second", "internal/blank": "blank", "internal/dot": "dot", "internal/many": "many"}
	decls := map[string]map[string]bool{
		"internal/one":    {"T": true},
		"internal/second": {"A": true, "B": true},
		"internal/blank":  {"Init": true},
		"internal/dot":    {"Dotted": true},
		"internal/many":   {"X": true, "Y": true, "Z": true},
	}
	uses := map[edge]map[string]bool{}
	usedNames(uses, "internal/p", f, pkgOf, name, decls)
	want := map[edge]map[string]bool{
		{"internal/p", "internal/one"}:    {"T": true},
		{"internal/p", "internal/second"}: {"A": true, "B": true},
		{"internal/p", "internal/many"}:   {"X": true, "Y": true, "Z": true},
	}
	if diff := cmp.Diff(want, uses, cmp.AllowUnexported(edge{})); diff != "" {
		t.Errorf("uses (-want +got):\n%s", diff)
	}
}

func TestSingleName(t *testing.T) {
	t.Parallel()
	uses := map[edge]map[string]bool{
		{"z", "b"}: {"Only": true},
		{"a", "b"}: {"X": true, "Y": true},
		{"a", "c"}: {"One": true},
		{"m", "n"}: {},
	}
	want := []namedEdge{{edge{"a", "c"}, []string{"One"}}, {edge{"z", "b"}, []string{"Only"}}}
	if diff := cmp.Diff(want, singleName(uses), cmp.AllowUnexported(edge{}, namedEdge{})); diff != "" {
		t.Errorf("singleName (-want +got):\n%s", diff)
	}
}

func TestExported(t *testing.T) {
	t.Parallel()
	src := `package q

type T struct{}
type t2 struct{}
func F() {}
func (T) Method() {}
func g() {}
var V, w = 1, 2
const (C = iota; c)
`
	f, err := parser.ParseFile(token.NewFileSet(), "q.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	exported(got, f)
	if diff := cmp.Diff(map[string]bool{"T": true, "F": true, "V": true, "C": true}, got); diff != "" {
		t.Errorf("exported (-want +got):\n%s", diff)
	}
}

func TestFits(t *testing.T) {
	t.Parallel()
	tab := synthetic(t)
	for _, tc := range []struct {
		name string
		g    graph
		want string
	}{
		{"imports only a leaf", graph{"x": {"z"}}, "layers 1 to 3"},
		{"imported by the middle, imports a leaf", graph{"x": {"z"}, "m": {"x"}}, "layers 2 to 3"},
		{"imported by a leaf, imports the top", graph{"x": {"a"}, "z": {"x"}}, "no layer fits it"},
	} {
		if got := fits("x", tc.g, tab); !strings.Contains(got, tc.want) {
			t.Errorf("%s: fits = %q, want it to say %q", tc.name, got, tc.want)
		}
	}
}
