package gate

import (
	"bufio"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
)

var (
	// genericLocRE: "[vet: ]path/file.ext:line[:col][:] message" (compilers, linters, errorformat %f:%l:%c: %m).
	genericLocRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:vet: )?((?:[A-Za-z]:)?[\w.~/\\@+-]*[\w-]\.[A-Za-z0-9]{1,8}):(\d+)(?::(\d+))?:?\s+(.+)$`)
	})
	// genericErrRE: a line that says it is an error or a failure, without a location.
	genericErrRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(error|fatal|fatal error|failed|fail|failure|panic)(\[[\w-]+\])?\s*[:!]\s*(.+)$`)
	})
	// stylish: a file path alone on a line, then "  line:col  error  message  rule" lines (eslint's default).
	stylishFileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(/|\./|[A-Za-z]:\\)?\S+\.[A-Za-z0-9]{1,8}$`) })
	stylishItemRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)(?:\s{2,}([@\w/-]+))?$`)
	})
	linterRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*\S) \(([a-z][\w-]*)\)$`) })
	severityRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(error|warning|warn|note|info|fatal error)(?:\[?([\w-]+)\]?)?\s*:\s*(.*)$`)
	})
)

// maxGenericErrors bounds the unlocated error lines kept by the generic parser.
const maxGenericErrors = 50

// parseGeneric finds file:line[:col] messages and error lines in any text.
func parseGeneric(br *bufio.Reader, c *collector) error {
	lr := newLineReader(br)
	unlocated := 0
	stylishFile := ""
	for {
		raw, ok := lr.next()
		if !ok {
			break
		}
		line := strings.TrimRight(StripANSI(string(raw)), " \t")
		if stylishFileRE().MatchString(line) {
			stylishFile = line
			continue
		}
		if m := stylishItemRE().FindStringSubmatch(line); m != nil && stylishFile != "" {
			f := evidence.Finding{Kind: evidence.KindLint, ID: m[5], File: stylishFile, Line: atoi(m[1]), Col: atoi(m[2]), Message: m[4]}
			if m[3] == "warning" {
				f.Severity = evidence.SeverityWarning
			}
			if m[5] == "" && strings.HasPrefix(m[4], "Parsing error") {
				f.Kind = evidence.KindBuild
			}
			c.add(f)
			continue
		}
		if line == "" {
			stylishFile = ""
		}
		if f, ok := genericLine(line); ok {
			c.add(f)
			continue
		}
		if m := genericErrRE().FindStringSubmatch(line); m != nil && unlocated < maxGenericErrors {
			unlocated++
			kind := evidence.KindBuild
			if w := strings.ToLower(m[1]); strings.HasPrefix(w, "fail") {
				kind = evidence.KindTest
			} else if w == "panic" {
				kind = evidence.KindCrash
			}
			c.add(evidence.Finding{Kind: kind, ID: strings.Trim(m[2], "[]"), Message: m[3]})
		}
	}
	return lr.readErr()
}

// genericLine parses one located message.
func genericLine(line string) (evidence.Finding, bool) {
	m := genericLocRE().FindStringSubmatch(line)
	if m == nil || strings.Contains(m[1], "://") {
		return evidence.Finding{}, false
	}
	ln, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	f := evidence.Finding{Kind: evidence.KindBuild, File: m[1], Line: ln, Col: col, Message: m[4]}
	if s := severityRE().FindStringSubmatch(f.Message); s != nil {
		switch strings.ToLower(s[1]) {
		case "warning", "warn":
			f.Severity = evidence.SeverityWarning
		case "note", "info":
			f.Severity = evidence.SeverityInfo
		}
		f.ID, f.Message = s[2], s[3]
	}
	if l := linterRE().FindStringSubmatch(f.Message); l != nil {
		f.Kind, f.Message, f.ID = evidence.KindLint, l[1], l[2]
	}
	return f, true
}
