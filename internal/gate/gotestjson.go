package gate

import (
	"bufio"
	"cmp"
	"sort"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// tkey names a test of a package; test is empty for the package itself.
type tkey struct{ pkg, test string }

// maxRunning bounds how many started-but-unfinished tests are tracked.
const maxRunning = 100000

type goJSON struct {
	c         *collector
	tests     map[tkey]*goTest   // running tests
	pkgs      map[string]*goTest // package-level output by package
	failed    map[tkey]int       // failed test → finding index, to mark flaky reruns
	pkgFound  map[string]int     // package → findings reported for it
	lastBuild map[string]int     // import path → index of its last build finding
	buildIDs  map[string]int     // build findings per id (package directory)
}

// parseGoTestJSON reads go test -json (test2json) output, go build -json output and
// gotestsum --jsonfile (reruns concatenated: a test that fails then passes is flaky).
func parseGoTestJSON(br *bufio.Reader, c *collector) error {
	p := &goJSON{c: c, tests: map[tkey]*goTest{}, pkgs: map[string]*goTest{},
		failed: map[tkey]int{}, pkgFound: map[string]int{}, lastBuild: map[string]int{}, buildIDs: map[string]int{}}
	lr := newLineReader(br)
	var ev goEvent
	var dec eventDecoder
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' || !dec.decode(line, &ev) {
			if !p.textLine(string(line)) { // stderr merged in: older Go prints build errors as text
				c.unreadable(string(line))
			}
			continue
		}
		p.event(&ev)
	}
	p.finish()
	return lr.readErr()
}

func (p *goJSON) event(ev *goEvent) {
	c := p.c
	switch ev.Action {
	case "build-output":
		c.parsed = true
		c.textTail(ev.Output)
		p.buildLine(stripTestSuffix(ev.ImportPath), strings.TrimRight(ev.Output, "\n"))
		return
	case "build-fail":
		c.parsed = true
		return
	}
	if ev.Package == "" {
		return
	}
	c.parsed = true
	if ev.Action == "output" {
		c.textTail(ev.Output)
	}
	if ev.Test == "" {
		p.pkgEvent(ev)
		return
	}
	key := tkey{ev.Package, ev.Test}
	t := p.tests[key]
	if t == nil && (ev.Action == "run" || ev.Action == "output" || ev.Action == "cont") && len(p.tests) < maxRunning {
		t = &goTest{pkg: ev.Package, name: ev.Test}
		p.tests[key] = t
	}
	switch ev.Action {
	case "output":
		if t != nil {
			t.observe(ev.Output, c)
		}
	case "pass":
		c.tests.Passed++
		if i, ok := p.failed[key]; ok && !c.findings[i].Flaky {
			c.findings[i].Flaky = true
			c.tests.Failed--
		}
		delete(p.tests, key)
	case "skip":
		c.tests.Skipped++
		delete(p.tests, key)
	case "fail":
		delete(p.tests, key)
		if t == nil {
			t = &goTest{pkg: ev.Package, name: ev.Test}
		}
		if i := strings.LastIndexByte(ev.Test, '/'); i >= 0 {
			if parent := p.tests[tkey{ev.Package, ev.Test[:i]}]; parent != nil {
				parent.failedChild = true
			}
		}
		if t.failedChild && len(t.lines) == 0 && t.panic == "" && t.timeout == "" && !t.race {
			return // a parent that failed only because a subtest did
		}
		p.report(key, t.finding(c, c.shortPkg(ev.Package)+"."+ev.Test))
	}
}

func (p *goJSON) report(key tkey, f evidence.Finding) {
	if f.Kind == evidence.KindTest || f.Kind == evidence.KindCrash || f.Kind == evidence.KindTimeout {
		p.c.tests.Failed++
	}
	p.pkgFound[key.pkg]++
	p.c.add(f)
	if key.test != "" && len(p.c.findings) > 0 {
		p.failed[key] = len(p.c.findings) - 1
	}
}

func (p *goJSON) buildLine(importPath, line string) {
	c := p.c
	line = StripANSI(line)
	if strings.HasPrefix(line, "# ") || strings.TrimSpace(line) == "" {
		return
	}
	if f, ok := buildFinding(line, c.shortPkg(importPath)); ok {
		p.pkgFound[importPath]++
		p.buildIDs[f.ID]++
		c.add(f)
		p.lastBuild[importPath] = len(c.findings) - 1
		return
	}
	// A continuation line (indented "have/want" detail) extends the last error.
	if i, ok := p.lastBuild[importPath]; ok && i < len(c.findings) && len(c.findings[i].Message) < maxMsgBytes {
		c.findings[i].Message += " | " + strings.TrimSpace(line)
	}
}

func (p *goJSON) pkgEvent(ev *goEvent) {
	pt := p.pkgs[ev.Package]
	if pt == nil {
		pt = &goTest{pkg: ev.Package}
		p.pkgs[ev.Package] = pt
	}
	switch ev.Action {
	case "output":
		pt.observe(ev.Output, p.c)
	case "fail":
		p.packageFailed(ev.Package, ev.FailedBuild, pt)
		delete(p.pkgs, ev.Package)
	case "pass", "skip":
		p.dropRunning(ev.Package)
		delete(p.pkgs, ev.Package)
	}
}

// packageFailed reports what a failed package leaves unexplained: a build that
// failed without parsable errors, tests that never finished, or a crash outside
// any test (TestMain, init).
func (p *goJSON) packageFailed(pkg, failedBuild string, pt *goTest) {
	c := p.c
	id := c.shortPkg(pkg)
	if failedBuild != "" || pt.buildFailed {
		if p.pkgFound[stripTestSuffix(failedBuild)] == 0 && p.pkgFound[pkg] == 0 && p.buildIDs[id] == 0 {
			p.report(tkey{pkg: pkg}, evidence.Finding{Kind: evidence.KindBuild, ID: id, Message: "build failed: " + cmp.Or(pt.last, cmp.Or(failedBuild, pkg))})
		}
		p.dropRunning(pkg)
		return
	}
	for _, name := range p.runningIn(pkg) {
		t := p.tests[tkey{pkg, name}]
		p.report(tkey{pkg, name}, t.unfinished(c, id+"."+name, pt.timeout))
	}
	p.dropRunning(pkg)
	if p.pkgFound[pkg] == 0 {
		var f evidence.Finding
		if pt.timeout != "" || pt.panic != "" {
			f = pt.unfinished(c, pkgPath(pkg), "")
		} else {
			f = evidence.Finding{Kind: evidence.KindCrash, ID: pkgPath(pkg), Unit: pkgPath(pkg), Message: "package failed: " + cmp.Or(pt.last, "no test reported a failure")}
		}
		p.report(tkey{pkg: pkg}, f)
	}
}

// runningIn lists the leaf tests of pkg still running, sorted.
func (p *goJSON) runningIn(pkg string) []string {
	var names []string
	for k := range p.tests {
		if k.pkg == pkg {
			names = append(names, k.test)
		}
	}
	sort.Strings(names)
	var leaves []string
	for _, n := range names {
		if isLeaf(n, names) {
			leaves = append(leaves, n)
		}
	}
	return leaves
}

func (p *goJSON) dropRunning(pkg string) {
	for k := range p.tests {
		if k.pkg == pkg {
			delete(p.tests, k)
		}
	}
}

// finish reports tests of packages whose output ended without a result (the gate
// was killed or the stream was cut).
func (p *goJSON) finish() {
	pkgs := map[string]bool{}
	for k := range p.tests {
		pkgs[k.pkg] = true
	}
	var sorted []string
	for q := range pkgs {
		sorted = append(sorted, q)
	}
	sort.Strings(sorted)
	for _, q := range sorted {
		pt := p.pkgs[q]
		if pt == nil {
			pt = &goTest{}
		}
		for _, name := range p.runningIn(q) {
			t := p.tests[tkey{q, name}]
			f := t.unfinished(p.c, p.c.shortPkg(q)+"."+name, pt.timeout)
			if f.Kind == evidence.KindCrash && t.panic == "" {
				f.Message = strings.Replace(f.Message, "did not finish (os.Exit, log.Fatal or a crash of the test binary)", "did not finish (the output ended)", 1)
			}
			p.report(tkey{q, name}, f)
		}
	}
}

// textLine takes a line that is not a JSON event: a compiler or vet error printed
// as text (go test -json 2>&1 before Go 1.24, or a failing vet step). It
// reports whether the line was one.
func (p *goJSON) textLine(line string) bool {
	line = StripANSI(line)
	p.c.textTail(line + "\n")
	f, ok := buildFinding(line, "")
	if ok {
		p.buildIDs[f.ID]++
		p.c.add(f)
	}
	return ok || strings.HasPrefix(line, "# ")
}
