package gate

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// collector gathers a parser's findings and counts within the limits.
type collector struct {
	opt      Options
	tool     string
	findings []evidence.Finding
	dropped  int
	tests    evidence.TestCounts
	parsed   bool
	module   string      // Go module path, to place t.Errorf base names
	workDir  string      // cleaned, with a trailing slash when set
	text     *tailWriter // the human text inside a structured stream, for the tail
	unread   int         // lines the format could not read
	sample   string      // the first of them
}

// unreadable counts a line the format could not read, keeping the first.
func (c *collector) unreadable(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	if c.unread == 0 {
		c.sample = textcut.Runes(textcut.Line(StripANSI(line)), 120)
	}
	c.unread++
}

// textTail records human-readable output (go test -json Output fields) so the
// report's tail shows text rather than JSON.
func (c *collector) textTail(s string) {
	if c.text == nil {
		c.text = newTailWriter(16 << 10)
	}
	_, _ = c.text.Write([]byte(s))
}

func newCollector(o Options, tool string) *collector {
	c := &collector{opt: o, tool: tool, module: o.Module}
	if o.Tool != "" {
		c.tool = o.Tool
	}
	if o.WorkDir != "" {
		c.workDir = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(o.WorkDir)), "/") + "/"
	}
	if c.module == "" && o.WorkDir != "" {
		c.module = readModule(filepath.Join(o.WorkDir, "go.mod"))
	}
	return c
}

// readModule returns the module path declared in a go.mod, or "".
func readModule(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	lr := newLineReader(f)
	for range 200 {
		l, ok := lr.next()
		if !ok {
			break
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(string(l)), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

func (c *collector) add(f evidence.Finding) {
	if len(c.findings) >= MaxFindings {
		c.dropped++
		return
	}
	if f.Tool == "" {
		f.Tool = c.tool
	}
	if f.Severity == "" {
		f.Severity = evidence.SeverityError
	}
	f.File = c.rel(f.File)
	if c.workDir != "" && strings.Contains(f.Message, c.workDir) {
		f.Message = strings.ReplaceAll(f.Message, c.workDir, "")
	}
	f.Message = cleanMessage(f.Message)
	f.ID = strings.TrimSpace(StripANSI(f.ID))
	c.findings = append(c.findings, f)
}

// rel makes a path relative to the work dir and strips URI schemes.
func (c *collector) rel(p string) string {
	if p == "" {
		return ""
	}
	p = strings.TrimPrefix(p, "file://")
	p = strings.TrimPrefix(p, "%SRCROOT%/")
	p = filepath.ToSlash(p)
	if c.workDir != "" && strings.HasPrefix(p, c.workDir) {
		p = p[len(c.workDir):]
	}
	if !strings.HasPrefix(p, "/") {
		p = path.Clean(p)
	}
	return p
}

// inRepo reports whether an absolute stack-frame path belongs to the project rather
// than to a toolchain, a dependency or the runtime.
func (c *collector) inRepo(p string) bool {
	for _, skip := range []string{"/usr/local/go/", "/go/src/runtime/", "/go/src/testing/", "/pkg/mod/", "node_modules", "node:internal", "/rustc/", "_testmain.go", "jest-circus", "site-packages", "/usr/lib/", "<anonymous>"} {
		if strings.Contains(p, skip) {
			return false
		}
	}
	if c.workDir != "" && strings.HasPrefix(p, "/") {
		return strings.HasPrefix(p, c.workDir)
	}
	return true
}

// pkgDir is the directory of a Go import path relative to the module root, or ""
// when the module is unknown.
func (c *collector) pkgDir(importPath string) string {
	if c.module == "" {
		return ""
	}
	if importPath == c.module {
		return "."
	}
	if rest, ok := strings.CutPrefix(importPath, c.module+"/"); ok {
		return rest
	}
	return ""
}

// shortPkg is the package name used in test ids: the import path relative to the
// module when known, else (and for the module's root package) its last element.
func (c *collector) shortPkg(importPath string) string {
	if d := c.pkgDir(importPath); d != "" && d != "." {
		return d
	}
	if i := strings.LastIndexByte(importPath, '/'); i >= 0 {
		return importPath[i+1:]
	}
	return importPath
}

// pkgPath names a package itself (a crash outside any test, in init or
// TestMain): by its import path, as go test prints it, never by its last element
// alone ("example.com/app/panic", not "panic").
func pkgPath(importPath string) string { return stripTestSuffix(importPath) }

// cleanMessage strips ANSI, trims and joins lines with " | ", bounded.
func cleanMessage(s string) string {
	s = StripANSI(s)
	if len(s) > 4*maxMsgBytes {
		s = s[:4*maxMsgBytes]
	}
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = textcut.Line(l); l != "" {
			parts = append(parts, l)
		}
		if len(parts) == maxMsgLines {
			break
		}
	}
	return textcut.Runes(strings.Join(parts, " | "), maxMsgBytes)
}
