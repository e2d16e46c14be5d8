package house

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

// tagSets are the build tag sets the module is built with: the default
// binary, and the one with the Temporal engine. The figures are the
// Temporal build's (it holds every package and every arrow of the default
// one's but the stubs).
var tagSets = []string{"", "temporal"}

// build is the module as one tag set builds it.
type build struct {
	graph graph               // each package's imports of the module's packages
	files map[string][]string // each package's non-test Go files, absolute
}

// module is this module as `go list` sees it under each tag set.
type module struct {
	root, path string
	names      map[string]string // package → its name
	builds     map[string]build  // tag set → build
}

// pkgOf returns the package of the module at importPath, by its path in the
// module.
func (m *module) pkgOf(importPath string) (string, bool) {
	return strings.CutPrefix(importPath, m.path+"/")
}

// union returns the imports of every tag set's build.
func (m *module) union() graph {
	g := graph{}
	for _, b := range m.builds {
		for p, imps := range b.graph {
			for _, q := range imps {
				if !slices.Contains(g[p], q) {
					g[p] = append(g[p], q)
				}
			}
			if _, ok := g[p]; !ok {
				g[p] = nil
			}
		}
	}
	return g
}

// rel returns path relative to the module's root, for messages.
func (m *module) rel(path string) string {
	if r, err := filepath.Rel(m.root, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// The module is listed once for every test that reads it.
var loaded struct {
	once sync.Once
	m    *module
	err  error
}

// loadModule returns the module the test runs in, listed by `go list` once
// per tag set. Without go on PATH the test is skipped, or fails under CI=true.
func loadModule(t *testing.T) *module {
	t.Helper()
	goBin := testenv.NeedTool(t, "go")
	loaded.once.Do(func() { loaded.m, loaded.err = listModule(t.Context(), goBin) })
	if loaded.err != nil {
		t.Fatal(loaded.err)
	}
	return loaded.m
}

// listModule finds the module's root from the working directory and lists
// its packages under each tag set.
func listModule(ctx context.Context, goBin string) (*module, error) {
	out, err := goCmd(ctx, goBin, "", "env", "GOMOD")
	if err != nil {
		return nil, err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return nil, errors.New("go env GOMOD: the test does not run inside a module: run it from the repository")
	}
	m := &module{root: filepath.Dir(gomod), names: map[string]string{}, builds: map[string]build{}}
	for _, tags := range tagSets {
		b, err := m.list(ctx, goBin, tags)
		if err != nil {
			return nil, err
		}
		m.builds[tags] = b
	}
	return m, nil
}

// listed is what the test reads of `go list -json` for one package.
type listed struct {
	ImportPath, Name, Dir string
	GoFiles, CgoFiles     []string
	Imports               []string // of the non-test files
	Module                *struct{ Path string }
}

// list runs `go list -json ./...` at the module's root with tags.
func (m *module) list(ctx context.Context, goBin, tags string) (build, error) {
	out, err := goCmd(ctx, goBin, m.root, "list", "-tags="+tags, "-json=ImportPath,Name,Dir,GoFiles,CgoFiles,Imports,Module", "./...")
	if err != nil {
		return build{}, err
	}
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return build{}, fmt.Errorf("read go list -tags=%s: %w", tags, err)
		}
		if p.Module == nil {
			return build{}, fmt.Errorf("go list -tags=%s: %s is in no module", tags, p.ImportPath)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return build{}, fmt.Errorf("go list -tags=%s ./... in %s listed no packages", tags, m.root)
	}
	m.path = pkgs[0].Module.Path
	b := build{graph: graph{}, files: map[string][]string{}}
	for _, p := range pkgs {
		name, ok := m.pkgOf(p.ImportPath)
		if !ok {
			if p.ImportPath != m.path {
				return build{}, fmt.Errorf("go list: %s is not in module %s", p.ImportPath, m.path)
			}
			name = "." // the module's root package
		}
		m.names[name] = p.Name
		b.graph[name] = nil
		for _, imp := range p.Imports {
			if q, ok := m.pkgOf(imp); ok {
				b.graph[name] = append(b.graph[name], q)
			}
		}
		for _, f := range slices.Concat(p.GoFiles, p.CgoFiles) {
			b.files[name] = append(b.files[name], filepath.Join(p.Dir, f))
		}
	}
	return b, nil
}

func goCmd(ctx context.Context, goBin, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// importedAt returns where pkg's non-test files, in any tag set's build,
// import the package to: "file:line" from the module's root.
func (m *module) importedAt(pkg, to string) []string {
	var at []string
	fset := token.NewFileSet()
	for _, path := range m.filesOf(pkg) {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			at = append(at, fmt.Sprintf("%s (unparsed: %v)", m.rel(path), err))
			continue
		}
		for _, spec := range f.Imports {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil && p == m.path+"/"+to {
				at = append(at, fmt.Sprintf("%s:%d", m.rel(path), fset.Position(spec.Pos()).Line))
			}
		}
	}
	return at
}

// filesOf returns pkg's non-test Go files in any tag set's build.
func (m *module) filesOf(pkg string) []string {
	var all []string
	for _, b := range m.builds {
		for _, f := range b.files[pkg] {
			if !slices.Contains(all, f) {
				all = append(all, f)
			}
		}
	}
	slices.Sort(all)
	return all
}

// uses returns, for each import in the build b between packages keep
// accepts, the names of the imported package its importer's files use.
func (m *module) uses(b build, keep func(string) bool) (map[edge]map[string]bool, error) {
	fset := token.NewFileSet()
	files := map[string][]*ast.File{}
	decls := map[string]map[string]bool{}
	for _, pkg := range keys(b.files) {
		if !keep(pkg) {
			continue
		}
		decls[pkg] = map[string]bool{}
		for _, path := range b.files[pkg] {
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, fmt.Errorf("parse %s: %w", m.rel(path), err)
			}
			files[pkg] = append(files[pkg], f)
			exported(decls[pkg], f)
		}
	}
	uses := map[edge]map[string]bool{}
	for pkg, fs := range files {
		for _, f := range fs {
			usedNames(uses, pkg, f, m.pkgOf, m.names, decls)
		}
	}
	return uses, nil
}

// longFiles returns the non-test Go files under internal/ and cmd/ longer
// than limit lines, whatever their build tags, with their lengths.
func (m *module) longFiles(limit int) ([]string, error) {
	var long []string
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(m.root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if n := bytes.Count(b, []byte("\n")); n > limit {
				long = append(long, fmt.Sprintf("%s (%d)", m.rel(path), n))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("count the lines of the files under %s: %w", top, err)
		}
	}
	return long, nil
}
