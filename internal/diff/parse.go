package diff

import (
	"strconv"
	"strings"
)

// fileDiff is one file's part of a unified diff.
type fileDiff struct {
	Old, New  string // paths without a/ b/ prefixes; "" for /dev/null
	Added     bool   // the file is new
	Deleted   bool   // the file was removed
	Binary    bool
	Index     string // the "index" line's object names, for binary changes
	Lines     []line
	header    bool // its ---/+++ lines were read
	forceTest bool // a test by the user's globs

}

// Path is the file's current path, or its old one when deleted.
func (f *fileDiff) Path() string {
	if f.New != "" {
		return f.New
	}
	return f.Old
}

// line is one changed or context line of a hunk.
type line struct {
	Op   byte // '+', '-' or ' '
	Text string
	N    int // line number: in the new file for '+' and ' ', the old file for '-'
	Hunk int // index of the hunk in the file
}

// parse splits a unified diff (git's or plain diff -u output) into files. It
// never fails: what it cannot read it skips.
func parse(unified string) []*fileDiff {
	var (
		files       []*fileDiff
		cur         *fileDiff
		oldLeft     int // lines of the current hunk still expected on each side
		newLeft     int
		oldN, newN  int
		hunk        = -1
		pendingOld  string
		havePending bool
	)
	start := func() *fileDiff {
		f := &fileDiff{}
		files = append(files, f)
		hunk = -1
		return f
	}
	for raw := range strings.SplitSeq(unified, "\n") {
		l := strings.TrimSuffix(raw, "\r")
		if cur != nil && (oldLeft > 0 || newLeft > 0) {
			switch {
			case strings.HasPrefix(l, "+"):
				cur.Lines = append(cur.Lines, line{Op: '+', Text: l[1:], N: newN, Hunk: hunk})
				newN++
				newLeft--
				continue
			case strings.HasPrefix(l, "-"):
				cur.Lines = append(cur.Lines, line{Op: '-', Text: l[1:], N: oldN, Hunk: hunk})
				oldN++
				oldLeft--
				continue
			case strings.HasPrefix(l, " ") || l == "":
				text := ""
				if l != "" {
					text = l[1:]
				}
				cur.Lines = append(cur.Lines, line{Op: ' ', Text: text, N: newN, Hunk: hunk})
				oldN++
				newN++
				oldLeft--
				newLeft--
				continue
			case strings.HasPrefix(l, `\`):
				continue
			}
			oldLeft, newLeft = 0, 0 // malformed hunk: fall through to headers
		}
		switch {
		case strings.HasPrefix(l, "diff --git "):
			cur = start()
			cur.Old, cur.New = splitGitHeader(l[len("diff --git "):])
			havePending = false
		case strings.HasPrefix(l, "--- "):
			// A plain diff (no "diff --git" line) starts a file at its --- line.
			if cur == nil || cur.header || cur.Binary || len(cur.Lines) > 0 {
				cur = start()
			}
			pendingOld, havePending = headerPath(l[4:], "a/"), true
		case strings.HasPrefix(l, "+++ ") && havePending && cur != nil:
			newPath := headerPath(l[4:], "b/")
			cur.Old, cur.New, cur.header = pendingOld, newPath, true
			cur.Added = cur.Added || pendingOld == ""
			cur.Deleted = cur.Deleted || newPath == ""
			havePending = false
		case strings.HasPrefix(l, "@@ ") && cur != nil:
			o, oc, n, nc, ok := hunkHeader(l)
			if !ok {
				continue
			}
			hunk++
			oldN, oldLeft, newN, newLeft = o, oc, n, nc
		case cur == nil:
			continue
		case strings.HasPrefix(l, "new file mode"):
			cur.Added, cur.Old = true, ""
		case strings.HasPrefix(l, "deleted file mode"):
			cur.Deleted, cur.New = true, ""
		case strings.HasPrefix(l, "rename from "):
			cur.Old = unquote(l[len("rename from "):])
		case strings.HasPrefix(l, "rename to "):
			cur.New = unquote(l[len("rename to "):])
		case strings.HasPrefix(l, "index "):
			if f := strings.Fields(l[len("index "):]); len(f) > 0 {
				cur.Index = f[0]
			}
		case strings.HasPrefix(l, "Binary files ") || l == "GIT binary patch":
			cur.Binary = true
		}
	}
	out := files[:0]
	for _, f := range files {
		if f.Old != "" || f.New != "" {
			out = append(out, f)
		}
	}
	return out
}

// splitGitHeader reads the two paths of a "diff --git a/X b/Y" line. Unquoted
// paths with spaces are split where both halves name the same file.
func splitGitHeader(s string) (string, string) {
	if strings.HasPrefix(s, `"`) {
		a, rest, ok := cutQuoted(s)
		if !ok {
			return "", ""
		}
		return strip(a, "a/"), strip(unquote(strings.TrimSpace(rest)), "b/")
	}
	if n := len(s); n >= 5 && (n-1)%2 == 0 {
		half := (n - 1) / 2
		if a, b := s[:half], s[half+1:]; s[half] == ' ' && strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:], b[2:]
		}
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return strip(s[:i], "a/"), s[i+3:]
	}
	return "", ""
}

// headerPath reads the path of a ---/+++ line: /dev/null is "", a trailing
// tab-separated timestamp is dropped, quotes and the a/ or b/ prefix removed.
func headerPath(s, prefix string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = unquote(strings.TrimSpace(s))
	if s == "/dev/null" {
		return ""
	}
	return strip(s, prefix)
}

func strip(s, prefix string) string { return strings.TrimPrefix(s, prefix) }

// unquote undoes git's C-style quoting of a path; anything else is returned as is.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(octalToHex(s)); err == nil {
			return u
		}
	}
	return s
}

// cutQuoted splits a leading quoted string from the rest.
func cutQuoted(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return unquote(s[:i+1]), s[i+1:], true
		}
	}
	return "", "", false
}

// octalToHex rewrites git's \ooo byte escapes, which Go's Unquote reads as
// runes, as \xhh bytes so that UTF-8 paths come back intact.
func octalToHex(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			v := (s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0')
			b.WriteString(`\x` + strconv.FormatUint(uint64(v)|0x100, 16)[1:])
			i += 3
			continue
		}
		if s[i] == '\\' && i+1 < len(s) {
			b.WriteByte(s[i])
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// hunkHeader reads "@@ -o,oc +n,nc @@".
func hunkHeader(l string) (o, oc, n, nc int, ok bool) {
	f := strings.Fields(l)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, 0, false
	}
	o, oc, ok1 := rangeOf(f[1][1:])
	n, nc, ok2 := rangeOf(f[2][1:])
	return o, oc, n, nc, ok1 && ok2
}

func rangeOf(s string) (start, count int, ok bool) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if has {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	const maxLines = 1 << 30
	if start > maxLines || count > maxLines {
		return 0, 0, false
	}
	return start, count, true
}
