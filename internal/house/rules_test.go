package house

import (
	"bufio"
	"fmt"
	"go/ast"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The pure parts of the house's tests: reading the table and the ratchet
// list, and judging a graph against them. Packages are named by their path in
// the module ("internal/cli").

// graph holds each package's imports of other packages of the module, from
// its non-test files.
type graph map[string][]string

// edge is one import: from imports to.
type edge struct{ from, to string }

func (e edge) String() string { return e.from + " → " + e.to }

// place is a package's entry in the layer table.
type place struct {
	layer   int  // 1 is the top
	planned bool // may not exist yet
}

// table is the layer table: the layers' names, top first, and each package's
// place.
type table struct {
	names []string
	pkgs  map[string]place
}

// layerName returns "layer N name" for n.
func (t table) layerName(n int) string {
	return fmt.Sprintf("layer %d %s", n, t.names[n-1])
}

// parseTable reads the layer table (the format layers.txt describes).
func parseTable(r io.Reader) (table, error) {
	t := table{pkgs: map[string]place{}}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if num, err := strconv.Atoi(f[0]); err == nil {
			if num != len(t.names)+1 || len(f) < 2 {
				return table{}, fmt.Errorf("line %d: %q: want \"%d name\" (layers are numbered from 1, top first, each with a name)", n, sc.Text(), len(t.names)+1)
			}
			t.names = append(t.names, strings.Join(f[1:], " "))
			continue
		}
		if len(t.names) == 0 {
			return table{}, fmt.Errorf("line %d: package %s before the first layer: start with \"1 name\"", n, f[0])
		}
		if len(f) > 2 || len(f) == 2 && f[1] != "planned" {
			return table{}, fmt.Errorf("line %d: %q: want a package path, then \"planned\" or nothing", n, sc.Text())
		}
		if p, ok := t.pkgs[f[0]]; ok {
			return table{}, fmt.Errorf("line %d: %s is already in %s: keep one entry", n, f[0], t.layerName(p.layer))
		}
		t.pkgs[f[0]] = place{layer: len(t.names), planned: len(f) == 2}
	}
	if err := sc.Err(); err != nil {
		return table{}, fmt.Errorf("read the layer table: %w", err)
	}
	if len(t.names) == 0 {
		return table{}, fmt.Errorf("the layer table has no layers")
	}
	return t, nil
}

// parseEdges reads a ratchet list: one "from → to" a line ("->" does too).
func parseEdges(r io.Reader) ([]edge, error) {
	var es []edge
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		line = strings.Replace(line, "->", "→", 1)
		from, to, ok := strings.Cut(line, "→")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !ok || from == "" || to == "" || strings.ContainsAny(from+to, " \t→") {
			return nil, fmt.Errorf("line %d: %q: want \"from → to\"", n, sc.Text())
		}
		es = append(es, edge{from, to})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the ratchet list: %w", err)
	}
	return es, nil
}

// upward returns the imports in g that go up the table, sorted: from sits
// in a lower layer than to. Packages the table does not hold are left to
// the check for missing entries.
func upward(g graph, t table) []edge {
	var up []edge
	for from, tos := range g {
		pf, ok := t.pkgs[from]
		if !ok {
			continue
		}
		for _, to := range tos {
			if pt, ok := t.pkgs[to]; ok && pt.layer < pf.layer {
				up = append(up, edge{from, to})
			}
		}
	}
	sortEdges(up)
	return up
}

// gaps returns the packages in g but not in the table, bench/ aside, and the
// entries of the table that are no package in g and not marked planned.
func gaps(g graph, t table) (missing, gone []string) {
	for _, p := range keys(g) {
		if _, ok := t.pkgs[p]; !ok && !isBench(p) {
			missing = append(missing, p)
		}
	}
	for _, p := range keys(t.pkgs) {
		if _, ok := g[p]; !ok && !t.pkgs[p].planned {
			gone = append(gone, p)
		}
	}
	return missing, gone
}

// benchImports returns the imports in g of a package under bench/ by one
// outside it, sorted.
func benchImports(g graph) []edge {
	var bad []edge
	for p, imps := range g {
		for _, q := range imps {
			if isBench(q) && !isBench(p) {
				bad = append(bad, edge{p, q})
			}
		}
	}
	sortEdges(bad)
	return bad
}

func isBench(p string) bool { return p == "bench" || strings.HasPrefix(p, "bench/") }

// ratchet compares the upward imports found with the list of known ones:
// added are found but not listed, stale are listed but no longer found.
func ratchet(found, known []edge) (added, stale []edge) {
	for _, e := range found {
		if !slices.Contains(known, e) {
			added = append(added, e)
		}
	}
	for _, e := range known {
		if !slices.Contains(found, e) {
			stale = append(stale, e)
		}
	}
	return added, stale
}

// longestChain returns a longest import chain in g among the packages keep
// accepts, from the importing end; of chains as long, the first in the order
// of package names.
func longestChain(g graph, keep func(string) bool) []string {
	memo := map[string][]string{}
	onPath := map[string]bool{}
	var from func(p string) []string
	from = func(p string) []string {
		if c, ok := memo[p]; ok {
			return c
		}
		onPath[p] = true // an import cycle cannot build; this keeps a bad input finite
		var best []string
		for _, q := range sorted(g[p]) {
			if !keep(q) || onPath[q] {
				continue
			}
			if c := from(q); len(c) > len(best) {
				best = c
			}
		}
		onPath[p] = false
		memo[p] = append([]string{p}, best...)
		return memo[p]
	}
	var best []string
	for _, p := range sorted(keys(g)) {
		if !keep(p) {
			continue
		}
		if c := from(p); len(c) > len(best) {
			best = c
		}
	}
	return best
}

// namedEdge is an import and the exported names of the imported package that
// the importer uses.
type namedEdge struct {
	edge
	names []string
}

// singleName returns the edges whose importer uses exactly one name of the
// imported package, sorted.
func singleName(uses map[edge]map[string]bool) []namedEdge {
	var one []namedEdge
	for e, names := range uses {
		if len(names) == 1 {
			one = append(one, namedEdge{e, keys(names)})
		}
	}
	slices.SortFunc(one, func(a, b namedEdge) int { return compareEdges(a.edge, b.edge) })
	return one
}

// usedNames adds to uses the names f, a non-test file of package from, uses of
// each package of the module it imports: selectors X.Name where X is the
// import's name in f and Name is one of decls[to], the exported names that
// package declares (so a local variable that shadows the import's name adds
// nothing it would not). pkgOf maps an import path to a package of the
// module; name holds each package's name, the default name of its import.
// Blank and dot imports use no names by selector, so they add nothing.
func usedNames(uses map[edge]map[string]bool, from string, f *ast.File, pkgOf func(importPath string) (string, bool), name map[string]string, decls map[string]map[string]bool) {
	local := map[string]string{} // the import's name in f → package
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		to, ok := pkgOf(path)
		if !ok {
			continue
		}
		n := name[to]
		if spec.Name != nil {
			n = spec.Name.Name
		}
		local[n] = to
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		to, ok := local[x.Name]
		if !ok || !decls[to][sel.Sel.Name] {
			return true
		}
		e := edge{from, to}
		if uses[e] == nil {
			uses[e] = map[string]bool{}
		}
		uses[e][sel.Sel.Name] = true
		return true
	})
}

// exported adds the exported names f declares at its top level to names:
// functions, types, variables and constants (methods are reached through a
// value, never by the package's name).
func exported(names map[string]bool, f *ast.File) {
	add := func(id *ast.Ident) {
		if id.IsExported() {
			names[id.Name] = true
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				add(d.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					add(s.Name)
				case *ast.ValueSpec:
					for _, id := range s.Names {
						add(id)
					}
				}
			}
		}
	}
}

func sortEdges(es []edge) { slices.SortFunc(es, compareEdges) }

func compareEdges(a, b edge) int {
	if c := strings.Compare(a.from, b.from); c != 0 {
		return c
	}
	return strings.Compare(a.to, b.to)
}

func keys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }
