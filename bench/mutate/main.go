// Command mutate measures how many small deliberate bugs the test suite catches.
//
// For each package it lists the mutants of its non-test Go files — a comparison
// turned (< to <=, == to !=), an arithmetic or logical operator swapped, ++ and --
// swapped, a minus sign dropped; with -kinds all also a boolean literal flipped
// and a numeric literal changed (n to n+1, x to 10x) — takes a sample of them (the same sample for the
// same seed), and runs the package's tests once per mutant with the mutated file
// swapped in through go test -overlay, so the source tree is never written. A
// mutant the tests fail on (or time out on) is killed, one they pass lives, one
// that does not compile is not counted. The package's unmutated run records its
// coverage: a mutant in code no test runs lives without being built (NOT
// COVERED).
//
//	go run ./bench/mutate [-n 40] [-seed 1] [-workers 1] [-kinds K,...|all] [-timeout 3m] [-cover=false] [-match S] [-from K] [-list] [-v] PKGDIR...
//	go run ./bench/mutate -known bench/mutate/known.txtar [-v] [PKGDIR...]
//
// It prints each outcome as it is known (on stderr), every surviving mutant and
// a table of the share killed per package. With -known it tests the known
// mutants of a list instead of a sample (see known.go), and fails when one
// lives.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mutant is one deliberate bug: the bytes [Off, Off+len(Old)) of File replaced by New.
type Mutant struct {
	File string
	Line int
	Col  int
	Off  int
	Old  string
	New  string
	Kind string
	Name string // what the bug does, for a known mutant (known.go)
}

func (m Mutant) String() string {
	if m.Name != "" {
		return fmt.Sprintf("%s:%d:%d %s: %s", filepath.Base(m.File), m.Line, m.Col, m.Kind, m.Name)
	}
	return fmt.Sprintf("%s:%d:%d %s %q → %q", filepath.Base(m.File), m.Line, m.Col, m.Kind, m.Old, m.New)
}

// swaps maps an operator to its mutants and their kind.
var swaps = map[token.Token][]struct {
	to   token.Token
	kind string
}{
	token.LSS:  {{token.LEQ, "boundary"}, {token.GEQ, "negation"}},
	token.LEQ:  {{token.LSS, "boundary"}, {token.GTR, "negation"}},
	token.GTR:  {{token.GEQ, "boundary"}, {token.LEQ, "negation"}},
	token.GEQ:  {{token.GTR, "boundary"}, {token.LSS, "negation"}},
	token.EQL:  {{token.NEQ, "negation"}},
	token.NEQ:  {{token.EQL, "negation"}},
	token.ADD:  {{token.SUB, "arithmetic"}},
	token.SUB:  {{token.ADD, "arithmetic"}},
	token.MUL:  {{token.QUO, "arithmetic"}},
	token.QUO:  {{token.MUL, "arithmetic"}},
	token.REM:  {{token.MUL, "arithmetic"}},
	token.LAND: {{token.LOR, "logical"}},
	token.LOR:  {{token.LAND, "logical"}},
}

// DefaultKinds are the mutants tested unless -kinds says otherwise: the usual
// operator mutants (those of go-gremlins' defaults, and && ↔ ||). Literal and
// boolean mutants are many, and mostly change a clip length or a label.
var DefaultKinds = []string{"boundary", "negation", "arithmetic", "increment", "negative", "logical"}

// Mutants lists the mutants of one Go source file, of every kind.
func Mutants(path string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []Mutant
	add := func(pos token.Pos, old, new, kind string) {
		p := fset.Position(pos)
		out = append(out, Mutant{File: path, Line: p.Line, Col: p.Column, Off: p.Offset, Old: old, New: new, Kind: kind})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec, *ast.FieldList:
			return false // import paths, struct tags, array sizes in types
		case *ast.BinaryExpr:
			if isString(n.X) || isString(n.Y) {
				return true // string concatenation: the mutant would not compile
			}
			for _, s := range swaps[n.Op] {
				add(n.OpPos, n.Op.String(), s.to.String(), s.kind)
			}
		case *ast.IncDecStmt:
			if n.Tok == token.INC {
				add(n.TokPos, "++", "--", "increment")
			} else {
				add(n.TokPos, "--", "++", "increment")
			}
		case *ast.UnaryExpr:
			if n.Op == token.SUB {
				add(n.OpPos, "-", " ", "negative")
			}
		case *ast.Ident:
			switch n.Name {
			case "true":
				add(n.Pos(), "true", "false", "boolean")
			case "false":
				add(n.Pos(), "false", "true", "boolean")
			}
		case *ast.BasicLit:
			switch n.Kind {
			case token.INT:
				if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
					add(n.Pos(), n.Value, strconv.FormatInt(v+1, 10), "literal")
				}
			case token.FLOAT:
				if v, err := strconv.ParseFloat(n.Value, 64); err == nil {
					add(n.Pos(), n.Value, strconv.FormatFloat(v*10, 'g', -1, 64), "literal")
				}
			}
		}
		return true
	})
	return out, nil
}

func isString(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.STRING
}

// Apply returns src with the mutant in place.
func Apply(src []byte, m Mutant) ([]byte, error) {
	if m.Off < 0 || m.Off+len(m.Old) > len(src) || string(src[m.Off:m.Off+len(m.Old)]) != m.Old {
		return nil, fmt.Errorf("%s: %q is not at offset %d", m.File, m.Old, m.Off)
	}
	out := make([]byte, 0, len(src)-len(m.Old)+len(m.New))
	out = append(out, src[:m.Off]...)
	out = append(out, m.New...)
	return append(out, src[m.Off+len(m.Old):]...), nil
}

// packageMutants lists the mutants of the given kinds of every non-test Go file in dir.
func packageMutants(dir string, kinds []string) ([]Mutant, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var all []Mutant
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		ms, err := Mutants(f, src)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if slices.Contains(kinds, m.Kind) {
				all = append(all, m)
			}
		}
	}
	return all, nil
}

// Sample returns n of the mutants, the same ones for the same seed, in file order.
func Sample(ms []Mutant, n int, seed uint64) []Mutant {
	if n <= 0 || n >= len(ms) {
		return ms
	}
	idx := rand.New(rand.NewPCG(seed, 0x6d7574)).Perm(len(ms))[:n]
	slices.Sort(idx)
	out := make([]Mutant, n)
	for i, j := range idx {
		out[i] = ms[j]
	}
	return out
}

type outcome int

const (
	killed outcome = iota
	lived
	timedOut
	notViable
	notCovered
)

func (o outcome) String() string {
	return [...]string{"KILLED", "LIVED", "TIMED OUT", "NOT VIABLE", "NOT COVERED"}[o]
}

// block is one basic block of a coverage profile: a span of a file and whether
// a test ran it.
type block struct {
	file                                 string // base name
	startLine, startCol, endLine, endCol int
	ran                                  bool
}

// parseCoverProfile reads the blocks of a go test -coverprofile file.
func parseCoverProfile(r io.Reader) ([]block, error) {
	var out []block
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "mode:") {
			continue
		}
		var b block
		var stmts, count int
		colon := strings.LastIndex(line, ":")
		if colon < 0 {
			return nil, fmt.Errorf("coverage profile: bad line %q", line)
		}
		if _, err := fmt.Sscanf(line[colon+1:], "%d.%d,%d.%d %d %d", &b.startLine, &b.startCol, &b.endLine, &b.endCol, &stmts, &count); err != nil {
			return nil, fmt.Errorf("coverage profile: bad line %q: %w", line, err)
		}
		b.file = filepath.Base(line[:colon])
		b.ran = count > 0
		out = append(out, b)
	}
	return out, nil
}

// covered reports whether a test ran the code the mutant changes: false only
// when a block holds it and none of the blocks that hold it ran. Code outside
// every block (a package-level initializer) counts as covered.
func covered(blocks []block, m Mutant) bool {
	in := false
	base := filepath.Base(m.File)
	for _, b := range blocks {
		if b.file != base || before(m.Line, m.Col, b.startLine, b.startCol) || before(b.endLine, b.endCol, m.Line, m.Col) {
			continue
		}
		if b.ran {
			return true
		}
		in = true
	}
	return !in
}

func before(l1, c1, l2, c2 int) bool { return l1 < l2 || l1 == l2 && c1 < c2 }

// runner runs a package's tests with a mutated file swapped in.
type runner struct {
	tmp      string
	timeout  time.Duration
	progress io.Writer // each outcome as it is known, or nil
	blocks   []block   // coverage of the unmutated run; nil: run every mutant
	// runTimeout is go test's -timeout for a mutant's test binary; 0: none.
	runTimeout time.Duration
}

// testAll tests each mutant, workers at a time, each worker with its own
// overlay files.
func (r runner) testAll(ctx context.Context, dir string, ms []Mutant, workers int) ([]outcome, error) {
	out := make([]outcome, len(ms))
	errs := make([]error, len(ms))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range max(workers, 1) {
		wr := r
		wr.tmp = filepath.Join(r.tmp, strconv.Itoa(w))
		if err := os.MkdirAll(wr.tmp, 0o755); err != nil {
			return nil, err
		}
		wg.Go(func() {
			for i := range next {
				if wr.blocks != nil && !covered(wr.blocks, ms[i]) {
					out[i] = notCovered // no test runs it: it lives, no need to build it
					continue
				}
				out[i], errs[i] = wr.test(ctx, dir, &ms[i])
				if wr.progress != nil {
					fmt.Fprintf(wr.progress, "  %s %s\n", out[i], ms[i])
				}
			}
		})
	}
	for i := range ms {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errors.Join(errs...)
}

func (r runner) test(ctx context.Context, dir string, m *Mutant) (outcome, error) {
	var extra []string
	if r.runTimeout > 0 {
		extra = []string{"-timeout=" + r.runTimeout.String()}
	}
	o, _, err := r.testArgs(ctx, dir, m, extra...)
	return o, err
}

// testTime is the time go test reports for a package's test binary.
var testTime = regexp.MustCompile(`(?m)^ok\s+\S+\s+([0-9.]+)s`)

// runTimeout bounds the test binary of a mutant from the unmutated run's
// output: a mutant that makes a test loop for ever fails when this runs out
// (go test -timeout), without waiting for the whole run's limit. 0: unknown.
func runTimeout(out []byte) time.Duration {
	m := testTime.FindSubmatch(out)
	if m == nil {
		return 0
	}
	secs, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return 0
	}
	return (20*time.Duration(secs*float64(time.Second)) + 15*time.Second).Round(time.Second)
}

func (r runner) testArgs(ctx context.Context, dir string, m *Mutant, extra ...string) (outcome, []byte, error) {
	// -vet=off: a mutant that vet rejects is not one the tests caught, and
	// vet is a second pass over the package for every mutant.
	args := append([]string{"test", "-count=1", "-vet=off"}, extra...)
	if m != nil {
		src, err := os.ReadFile(m.File)
		if err != nil {
			return 0, nil, err
		}
		mut, err := Apply(src, *m)
		if err != nil {
			return 0, nil, err
		}
		abs, err := filepath.Abs(m.File)
		if err != nil {
			return 0, nil, err
		}
		file := filepath.Join(r.tmp, "mutant.go")
		if err := os.WriteFile(file, mut, 0o644); err != nil {
			return 0, nil, err
		}
		ov, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: file}})
		overlay := filepath.Join(r.tmp, "overlay.json")
		if err := os.WriteFile(overlay, ov, 0o644); err != nil {
			return 0, nil, err
		}
		args = append(args, "-overlay="+overlay)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(args, "./"+filepath.ToSlash(filepath.Clean(dir)))...)
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return timedOut, out.Bytes(), nil
	case err == nil:
		return lived, out.Bytes(), nil
	case bytes.Contains(out.Bytes(), []byte("[build failed]")) || bytes.Contains(out.Bytes(), []byte("[setup failed]")):
		if m == nil {
			return 0, nil, fmt.Errorf("%s does not build:\n%s", dir, out.Bytes())
		}
		return notViable, out.Bytes(), nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, nil, err
	}
	if m == nil {
		return 0, nil, fmt.Errorf("the tests of %s fail without any mutant:\n%s", dir, tail(out.Bytes(), 2000))
	}
	return killed, out.Bytes(), nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

type tally struct {
	pkg                      string
	total, sampled           int
	killed, lived, notViable int
}

func (t tally) score() float64 {
	if t.killed+t.lived == 0 {
		return 0
	}
	return 100 * float64(t.killed) / float64(t.killed+t.lived)
}

func main() {
	n := flag.Int("n", 40, "mutants sampled per package (0: all)")
	seed := flag.Uint64("seed", 1, "sample seed")
	timeout := flag.Duration("timeout", 0, "time limit of one test run (0: 3× the unmutated run + 30s)")
	list := flag.Bool("list", false, "list the sampled mutants without running the tests")
	verbose := flag.Bool("v", false, "print every mutant's outcome")
	cover := flag.Bool("cover", true, "count a mutant in code no test runs as lived without testing it")
	match := flag.String("match", "", "test only the sampled mutants whose description matches this regular expression (e.g. 'store.go:163:|name.go')")
	from := flag.Int("from", 0, "skip the first sampled mutants of each package (to resume a stopped run)")
	workers := flag.Int("workers", 1, "mutants tested at once")
	kinds := flag.String("kinds", strings.Join(DefaultKinds, ","), "mutant kinds, comma-separated (all: also literal,boolean)")
	knownList := flag.String("known", "", "test the known mutants of this list ("+KnownFile+") instead of a sample; PKGDIR... narrows them")
	flag.Parse()
	if flag.NArg() == 0 && *knownList == "" {
		fmt.Fprintln(os.Stderr, "usage: mutate [-n N] [-seed S] [-timeout D] [-list] [-v] PKGDIR... | mutate -known LIST [PKGDIR...]")
		os.Exit(2)
	}
	ks := strings.Split(*kinds, ",")
	if *kinds == "all" {
		ks = append(slices.Clone(DefaultKinds), "literal", "boolean")
	}
	dirs := flag.Args()
	var known []Mutant
	if *knownList != "" {
		var err error
		if known, err = loadKnown(*knownList); err != nil {
			fmt.Fprintln(os.Stderr, "mutate:", err)
			os.Exit(1)
		}
		dirs = knownDirs(known, dirs)
	}
	if err := run(context.Background(), os.Stdout, dirs, ks, *n, *seed, *timeout, *workers, *list, *verbose, *cover, *match, *from, os.Stderr, known); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

// run tests a sample of each package's mutants, or with known the known
// mutants of each package instead.
func run(ctx context.Context, w io.Writer, dirs, kinds []string, n int, seed uint64, timeout time.Duration, workers int, list, verbose, cover bool, match string, from int, progress io.Writer, known []Mutant) error {
	tmp, err := os.MkdirTemp("", "mutate")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var tallies []tally
	var knownLived []Mutant
	for _, dir := range dirs {
		all, err := packageMutants(dir, kinds)
		if err != nil {
			return err
		}
		sample := Sample(all, n, seed)
		if known != nil {
			all = knownOf(known, dir)
			sample = all
		}
		if match != "" {
			re, err := regexp.Compile(match)
			if err != nil {
				return fmt.Errorf("-match: %w", err)
			}
			sample = slices.DeleteFunc(sample, func(m Mutant) bool { return !re.MatchString(m.String()) })
		}
		sample = sample[min(from, len(sample)):]
		t := tally{pkg: dir, total: len(all), sampled: len(sample)}
		if list {
			for _, m := range sample {
				fmt.Fprintf(w, "%s: %s\n", dir, m)
			}
			continue
		}
		r := runner{tmp: tmp, timeout: timeout, progress: progress}
		if r.timeout == 0 || cover {
			// The unmutated run: the tests must pass, its time bounds the
			// mutants' runs, its coverage says which mutants no test reaches.
			start := time.Now()
			r.timeout = 30 * time.Minute
			var extra []string
			profile := filepath.Join(tmp, "cover.out")
			if cover {
				extra = []string{"-coverprofile=" + profile}
			}
			_, out, err := r.testArgs(ctx, dir, nil, extra...)
			if err != nil {
				return err
			}
			r.runTimeout = runTimeout(out)
			r.timeout = timeout
			if timeout == 0 {
				r.timeout = 3*time.Since(start) + 30*time.Second
			}
			if cover {
				f, err := os.Open(profile)
				if err != nil {
					return err
				}
				r.blocks, err = parseCoverProfile(f)
				f.Close()
				if err != nil {
					return err
				}
			}
		}
		fmt.Fprintf(w, "%s: %d mutants, testing %d (time limit %s, of the tests %s)\n", dir, len(all), len(sample), r.timeout.Round(time.Second), r.runTimeout)
		outcomes, err := r.testAll(ctx, dir, sample, workers)
		if err != nil {
			return err
		}
		for i, m := range sample {
			switch o := outcomes[i]; o {
			case killed, timedOut:
				t.killed++
			case lived, notCovered:
				t.lived++
			case notViable:
				t.notViable++
			}
			if verbose || outcomes[i] == lived || outcomes[i] == notCovered {
				fmt.Fprintf(w, "  %-10s %s\n", outcomes[i], m)
			}
			if known != nil && outcomes[i] != killed && outcomes[i] != timedOut {
				knownLived = append(knownLived, m) // a known mutant that does not build is a stale entry
			}
		}
		tallies = append(tallies, t)
	}
	if list {
		return nil
	}
	fmt.Fprintf(w, "\n| package | mutants | sampled | killed | lived | not viable | killed %% |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, t := range tallies {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %.0f%% |\n", t.pkg, t.total, t.sampled, t.killed, t.lived, t.notViable, t.score())
	}
	if len(knownLived) > 0 {
		var names []string
		for _, m := range knownLived {
			names = append(names, m.File+": "+m.Name)
		}
		return fmt.Errorf("%d of the known mutants were not killed (the test that caught each is gone or weaker, or its entry does not build):\n  %s", len(knownLived), strings.Join(names, "\n  "))
	}
	return nil
}
