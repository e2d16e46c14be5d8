package house

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// ceilings holds each house figure's ceiling, above which TestFigures fails:
// the figure today, lowered as the house gets flatter (a ratchet: lower a
// ceiling to the figure a change reaches), and the target of DESIGN.md §12.
var ceilings = []struct {
	figure          string
	ceiling, target float64
}{
	{"longest import chain", 9, 9},
	{"arrows per package", 3.63, 4.2},
	{"packages imported for a single name", 0, 0},
	{"internal/cli's fan-out", 6, 12},
	{"files over 300 lines", 22, 25},
}

// TestLayers holds the import graph of the module, in the default build and
// the Temporal one, to the layer table: no upward import but those known.txt
// lists, no line of known.txt that is no longer true, every package in the
// table and every entry a package (or planned), nothing imports bench/.
func TestLayers(t *testing.T) {
	t.Parallel()
	m := loadModule(t)
	tab := readTable(t)
	known := readKnown(t)
	g := m.union()

	missing, gone := gaps(g, tab)
	for _, p := range missing {
		t.Errorf("%s is a package of the module but not in the layer table: add it to the layer table in internal/house/layers.txt, in the layer its imports put it (%s)", p, fits(p, g, tab))
	}
	for _, p := range gone {
		t.Errorf("internal/house/layers.txt holds %s, which is no longer a package of the module: remove it from the table (or mark it planned, if it is to come)", p)
	}
	for _, e := range benchImports(g) {
		t.Errorf("%s imports %s at %s: nothing outside bench/ may import a package under bench/; move what both need into internal/", e.from, e.to, strings.Join(m.importedAt(e.from, e.to), ", "))
	}

	added, stale := ratchet(upward(g, tab), known)
	for _, e := range added {
		t.Errorf("%s (%s) imports %s (%s), a layer above it, at %s%s: a package imports only from its own layer or below. Move what it uses lower (into %s's layer or below, the vocabulary in internal/decision if it is shared), or invert the arrow with an interface %s declares and a package above both implements",
			e.from, tab.layerName(tab.pkgs[e.from].layer), e.to, tab.layerName(tab.pkgs[e.to].layer),
			strings.Join(m.importedAt(e.from, e.to), ", "), m.usesOf(t, e), e.from, e.from)
	}
	for _, e := range stale {
		why := "the table puts " + e.to + " in " + e.from + "'s layer or below"
		if _, ok := g[e.from]; !ok {
			why = e.from + " is no longer a package"
		} else if !slices.Contains(g[e.from], e.to) {
			why = e.from + " no longer imports " + e.to
		}
		t.Errorf("internal/house/known.txt lists %s, which is not an upward import in the code now (%s): remove it from the list", e, why)
	}
}

// TestFigures computes the house figures from the Temporal build's import
// graph, logs them with their ceilings and targets (go test -run Figures -v)
// and fails on a figure above its ceiling.
func TestFigures(t *testing.T) {
	t.Parallel()
	m := loadModule(t)
	tab := readTable(t)
	b := m.builds["temporal"]
	// The figures are the house's: bench/ is not in it, and this package,
	// which holds no code, would only add a package without arrows.
	keep := func(p string) bool { return !isBench(p) && p != "internal/house" }

	type figure struct {
		value  float64
		text   string
		detail []string
	}
	figs := map[string]figure{}

	chain := longestChain(b.graph, keep)
	figs["longest import chain"] = figure{float64(len(chain)), fmt.Sprint(len(chain)), []string{strings.Join(chain, " → ")}}

	var pkgs, arrows int
	for p, imps := range b.graph {
		if keep(p) {
			pkgs++
			arrows += len(imps)
		}
	}
	perPkg := math.Round(100*float64(arrows)/float64(pkgs)) / 100
	figs["arrows per package"] = figure{perPkg, fmt.Sprintf("%.2f (%d/%d)", perPkg, arrows, pkgs), nil}

	uses, err := m.uses(b, keep)
	if err != nil {
		t.Fatal(err)
	}
	// A leaf or the vocabulary (the bottom layer) is there to be imported
	// for one name (STYLE.md §16): the figure counts imports of the floors
	// above it.
	// A thin main (STYLE.md §1: cmd/NAME calls one function of its package)
	// imports its package for that one call.
	var single []string
	leaves := 0
	for _, e := range singleName(uses) {
		if p, ok := tab.pkgs[e.to]; ok && p.layer == len(tab.names) {
			leaves++
			continue
		}
		if strings.Contains(e.from, "/cmd/") && e.names[0] == "Main" {
			continue
		}
		single = append(single, fmt.Sprintf("%s (%s)", e.edge, e.names[0]))
	}
	figs["packages imported for a single name"] = figure{float64(len(single)), fmt.Sprint(len(single)), append(single, fmt.Sprintf("(and %d imports of a package of the bottom layer for one name, not counted)", leaves))}

	fanOut := len(b.graph["internal/cli"])
	figs["internal/cli's fan-out"] = figure{float64(fanOut), fmt.Sprint(fanOut), nil}

	long, err := m.longFiles(300)
	if err != nil {
		t.Fatal(err)
	}
	figs["files over 300 lines"] = figure{float64(len(long)), fmt.Sprint(len(long)), long}

	for _, c := range ceilings {
		f, ok := figs[c.figure]
		if !ok {
			t.Errorf("the ceilings table names %q, a figure the test does not compute", c.figure)
			continue
		}
		delete(figs, c.figure)
		t.Logf("%s: %s (ceiling %g, target %g)", c.figure, f.text, c.ceiling, c.target)
		for _, d := range f.detail {
			t.Logf("\t%s", d)
		}
		switch {
		case f.value > c.ceiling:
			t.Errorf("%s is %s, above its ceiling %g: the house grew a floor, an arrow or a long file; undo that (DESIGN.md §12, STYLE.md §16) rather than raise the ceiling", c.figure, f.text, c.ceiling)
		case f.value < c.ceiling:
			t.Logf("\t%s is below its ceiling: lower the ceiling in internal/house/house_test.go to keep the gain", c.figure)
		}
	}
	for name := range figs {
		t.Errorf("the figure %q has no ceiling: add one to the ceilings table", name)
	}
}

// usesOf returns ", where it uses …" for the import e, or nothing when its
// names cannot be read.
func (m *module) usesOf(t *testing.T, e edge) string {
	t.Helper()
	b := build{files: map[string][]string{e.from: m.filesOf(e.from), e.to: m.filesOf(e.to)}}
	uses, err := m.uses(b, func(string) bool { return true })
	if err != nil || len(uses[e]) == 0 {
		return ""
	}
	var names []string
	for _, n := range keys(uses[e]) {
		names = append(names, m.names[e.to]+"."+n)
	}
	return ", where it uses " + strings.Join(names, ", ")
}

// fits says which layers p's imports and importers in g allow it.
func fits(p string, g graph, tab table) string {
	lowest, highest := len(tab.names), 1
	for _, q := range g[p] {
		if pl, ok := tab.pkgs[q]; ok {
			lowest = min(lowest, pl.layer)
		}
	}
	for r, imps := range g {
		if pl, ok := tab.pkgs[r]; ok && slices.Contains(imps, p) {
			highest = max(highest, pl.layer)
		}
	}
	if highest > lowest {
		return fmt.Sprintf("no layer fits it: what it imports puts it in layer %d or above, what imports it in layer %d or below", lowest, highest)
	}
	return fmt.Sprintf("its imports and importers allow layers %d to %d", highest, lowest)
}

func readTable(t *testing.T) table {
	t.Helper()
	f, err := os.Open("layers.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := parseTable(f)
	if err != nil {
		t.Fatalf("internal/house/layers.txt: %v", err)
	}
	return tab
}

func readKnown(t *testing.T) []edge {
	t.Helper()
	f, err := os.Open("known.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known, err := parseEdges(f)
	if err != nil {
		t.Fatalf("internal/house/known.txt: %v", err)
	}
	return known
}
