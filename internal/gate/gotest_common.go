package gate

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// goTest is what is known of one Go test (or package) from its output so far.
type goTest struct {
	pkg, name   string
	lines       []string // message lines, bounded
	size        int
	frame       string // first in-repo stack frame, "path:line"
	last        string // last meaningful output line
	panic       string // the "panic: …" line
	timeout     string // "test timed out after 3s"
	race        bool
	stack       bool // a panic or race dump started: stop collecting message lines
	failedChild bool
	buildFailed bool     // a "[build failed]" package line was seen
	running     []string // tests named by a timeout panic's "running tests:" list
}

var (
	goFrameRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(/\S+?\.go):(\d+)`) })
	goLogRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+([\w.\-]+\.go):(\d+): ?(.*)$`) })
	goRunningRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\t\t(\S+) \(`) })
)

// isFraming reports whether line is go test's own framing (=== RUN, --- PASS: …).
func isFraming(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(t) < 8 || (t[0] != '=' && t[0] != '-') {
		return false
	}
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- FAIL: ", "--- PASS: ", "--- SKIP: "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// observe takes one output line of the test.
func (t *goTest) observe(line string, c *collector) {
	line = strings.TrimRight(StripANSI(line), "\n")
	if isFraming(line) {
		return
	}
	trimmed := strings.TrimSpace(line)
	if strings.HasSuffix(trimmed, "[build failed]") {
		t.buildFailed = true
	}
	switch {
	case strings.HasPrefix(line, "panic: test timed out after "):
		t.timeout = strings.TrimPrefix(line, "panic: ")
		t.stack = true
	case strings.HasPrefix(line, "panic: ") && t.panic == "":
		t.panic = textcut.Runes(line, 300)
		t.stack = true
	case trimmed == "WARNING: DATA RACE":
		t.race = true
		t.stack = true
	case t.timeout != "" && len(t.running) < 50:
		if m := goRunningRE().FindStringSubmatch(line); m != nil {
			t.running = append(t.running, m[1])
		}
	}
	if t.frame == "" && len(line) > 0 && (line[0] == ' ' || line[0] == '\t') && strings.Contains(line, ".go:") {
		if m := goFrameRE().FindStringSubmatch(line); m != nil && c.inRepo(m[1]) {
			t.frame = m[1] + ":" + m[2]
		}
	}
	if trimmed == "" || trimmed == "FAIL" || trimmed == "PASS" || strings.HasPrefix(trimmed, "FAIL\t") || strings.HasPrefix(trimmed, "ok  \t") {
		return
	}
	if !t.stack || strings.Contains(line, "race detected during execution of test") {
		t.last = textcut.Runes(trimmed, 300)
	}
	if t.stack || len(t.lines) >= maxMsgLines || t.size >= maxMsgBytes {
		return
	}
	l := textcut.Runes(line, 500)
	t.lines = append(t.lines, l)
	t.size += len(l)
}

// finding turns a failed test into a finding; pkgDir places t.Errorf base names.
func (t *goTest) finding(c *collector, id string) evidence.Finding {
	f := evidence.Finding{Kind: evidence.KindTest, ID: id}
	t.selector(&f)
	switch {
	case t.timeout != "":
		f.Kind, f.Message = evidence.KindTimeout, t.timeout
	case t.panic != "":
		f.Kind, f.Message = evidence.KindCrash, t.panic
	case t.race:
		f.Kind, f.Message = evidence.KindCrash, "data race detected"
	}
	if f.Kind != evidence.KindTest {
		if t.frame != "" {
			f.File, f.Line = splitFileLine(t.frame)
		}
		return f
	}
	var msg []string
	for i, l := range t.lines {
		if m := goLogRE().FindStringSubmatch(l); m != nil {
			if f.File == "" {
				f.File = m[1]
				if d := c.pkgDir(t.pkg); d != "" {
					f.File = path.Join(d, m[1])
				}
				f.Line, _ = strconv.Atoi(m[2])
				msg = append(msg, m[3])
				continue
			}
		}
		if i < maxMsgLines {
			msg = append(msg, strings.TrimSpace(l))
		}
	}
	f.Message = strings.Join(msg, "\n")
	if f.Message == "" {
		f.Message = "failed"
	}
	return f
}

// unfinished is the finding of a test that started and never reported a result.
func (t *goTest) unfinished(c *collector, id string, pkgTimeout string) evidence.Finding {
	f := evidence.Finding{Kind: evidence.KindCrash, ID: id}
	t.selector(&f)
	switch {
	case t.timeout != "":
		f.Kind, f.Message = evidence.KindTimeout, t.timeout
	case pkgTimeout != "":
		f.Kind, f.Message = evidence.KindTimeout, pkgTimeout
	case t.panic != "":
		f.Message = t.panic
	default:
		f.Message = "did not finish (os.Exit, log.Fatal or a crash of the test binary)"
		if t.last != "" {
			f.Message += "; last output: " + t.last
		}
	}
	if t.frame != "" {
		f.File, f.Line = splitFileLine(t.frame)
	}
	return f
}

// selector names the test as go test selects it: its package's import path
// and its name ("TestRead/quoted"); a package's own failure (TestMain, init)
// names the package alone.
func (t *goTest) selector(f *evidence.Finding) {
	if t.pkg == "" {
		return
	}
	f.Unit, f.Test = stripTestSuffix(t.pkg), t.name
}

func splitFileLine(s string) (string, int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n, _ := strconv.Atoi(s[i+1:])
	return s[:i], n
}

// goBuildRE matches compiler and vet lines: [vet: ]file.go:line[:col]: message.
var goBuildRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:vet: )?([^\s:][^:]*\.go):(\d+)(?::(\d+))?: (.+)$`)
})

// buildFinding parses a compiler/vet line into a build finding; its id is the
// package directory, or id when the file has none.
func buildFinding(line, id string) (evidence.Finding, bool) {
	m := goBuildRE().FindStringSubmatch(line)
	if m == nil {
		return evidence.Finding{}, false
	}
	if d := path.Dir(m[1]); d != "." && !strings.HasPrefix(m[1], "/") {
		id = d
	}
	ln, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return evidence.Finding{Kind: evidence.KindBuild, ID: id, File: m[1], Line: ln, Col: col, Message: m[4]}, true
}

// isLeaf reports whether no other name in names is a subtest of name.
func isLeaf(name string, names []string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, name+"/") {
			return false
		}
	}
	return true
}

// stripTestSuffix turns "pkg [pkg.test]" into "pkg".
func stripTestSuffix(importPath string) string {
	if i := strings.Index(importPath, " ["); i >= 0 {
		return importPath[:i]
	}
	return importPath
}
