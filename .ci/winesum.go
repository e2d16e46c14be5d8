//go:build ignore

// winesum reads `go test -json` on stdin and says, per package, how many
// tests ran, passed, failed and were skipped, and why each skipped test was:
// the wine tier's account (.ci/wine). It exits 1 when a test or a package
// failed.
//
//	go test -json … | go run .ci/winesum.go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // of a build event
}

type pkg struct {
	passed, failed, skipped []string
	why                     map[string]string // a skipped test's reason
	out                     map[string][]string
	result                  string // the package's own pass, fail or skip
}

func main() {
	pkgs := map[string]*pkg{}
	get := func(name string) *pkg {
		p := pkgs[name]
		if p == nil {
			p = &pkg{why: map[string]string{}, out: map[string][]string{}}
			pkgs[name] = p
		}
		return p
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Println(sc.Text()) // a build error
			continue
		}
		if e.Action == "build-output" {
			fmt.Print(e.Output) // a compile error
			continue
		}
		if e.Package == "" {
			continue
		}
		p := get(e.Package)
		switch {
		case e.Action == "output":
			p.out[e.Test] = append(p.out[e.Test], e.Output)
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			p.result = e.Action
		case e.Action == "pass":
			p.passed = append(p.passed, e.Test)
		case e.Action == "fail":
			p.failed = append(p.failed, e.Test)
		case e.Action == "skip":
			p.skipped = append(p.skipped, e.Test)
			p.why[e.Test] = reason(p.out[e.Test])
		}
	}
	names := make([]string, 0, len(pkgs))
	for n := range pkgs {
		names = append(names, n)
	}
	slices.Sort(names)
	var ran, passed, failed, skipped int
	bad := false
	for _, n := range names {
		p := pkgs[n]
		r := len(p.passed) + len(p.failed) + len(p.skipped)
		ran, passed, failed, skipped = ran+r, passed+len(p.passed), failed+len(p.failed), skipped+len(p.skipped)
		fmt.Printf("%-50s %-4s ran %3d  passed %3d  failed %2d  skipped %2d\n", n, p.result, r, len(p.passed), len(p.failed), len(p.skipped))
		for _, t := range p.skipped {
			fmt.Printf("    skip %s: %s\n", t, p.why[t])
		}
		for _, t := range p.failed {
			fmt.Printf("    FAIL %s\n", t)
			for _, l := range p.out[t] {
				fmt.Print("        ", l)
			}
		}
		if p.result == "fail" {
			bad = true
			if len(p.failed) == 0 {
				for _, l := range p.out[""] {
					fmt.Print("        ", l)
				}
			}
		}
	}
	fmt.Printf("wine tier: %d packages, %d tests ran, %d passed, %d failed, %d skipped\n", len(names), ran, passed, failed, skipped)
	if bad || failed > 0 {
		os.Exit(1)
	}
}

// reason is what a skipped test said as it skipped: its last line of
// output before "--- SKIP", without the file:line.
func reason(out []string) string {
	for _, l := range slices.Backward(out) {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if _, rest, ok := strings.Cut(l, ".go:"); ok {
			if _, msg, ok := strings.Cut(rest, ": "); ok {
				return msg
			}
		}
		return l
	}
	return "(no reason given)"
}
