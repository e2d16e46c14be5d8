package diff

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

var (
	goFuncDecl = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^func\s+(?:\(\s*(?:\w+\s+)?\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*)?([A-Za-z_]\w*)`)
	})
	goTopDecl   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(type|var|const)\s+([A-Za-z_]\w*)`) })
	goBlockOpen = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(type|var|const)\s*\(\s*(?://.*)?$`) })
	goBlockItem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\t([A-Z]\w*)(?:\s*,\s*[A-Za-z_]\w*)*(?:\s|$|=|\[)`) })
)

// decl is one exported declaration seen on a changed line.
type decl struct {
	kind, name, text string
}

// exportedChanges names the exported Go declarations the diff adds, removes or
// changes in non-test .go files outside internal/, vendor/ and testdata/
// directories (which no other module can import), as "file: kind Name how".
func exportedChanges(files []*fileDiff) []string {
	var out []string
	for _, f := range files {
		p := f.Path()
		if !publicGoFile(p) && !(f.Old != "" && publicGoFile(f.Old)) {
			continue
		}
		removed, added := map[string]decl{}, map[string]decl{}
		var order []string
		var blockOld, blockNew string // the block each side's next line is in
		hunk := -1
		for _, l := range f.Lines {
			if l.Hunk != hunk {
				hunk, blockOld, blockNew = l.Hunk, "", ""
			}
			var d decl
			switch l.Op {
			case '-':
				d, blockOld = goDecl(l.Text, blockOld)
			case '+':
				d, blockNew = goDecl(l.Text, blockNew)
			default:
				_, blockOld = goDecl(l.Text, blockOld)
				_, blockNew = goDecl(l.Text, blockNew)
				continue
			}
			if d.name == "" {
				continue
			}
			key := d.kind + " " + d.name
			_, inA := added[key]
			_, inR := removed[key]
			if !inA && !inR {
				order = append(order, key)
			}
			m := added
			if l.Op == '-' {
				m = removed
			}
			if _, seen := m[key]; !seen {
				m[key] = d
			}
		}
		for _, key := range order {
			a, inA := added[key]
			r, inR := removed[key]
			switch {
			case inA && inR:
				if squash(signature(a)) != squash(signature(r)) {
					out = append(out, p+": "+key+" changed")
				}
			case inA:
				out = append(out, p+": "+key+" added")
			default:
				out = append(out, p+": "+key+" removed")
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// publicGoFile reports whether p is a non-test Go file of an importable package.
func publicGoFile(p string) bool {
	p = cleanPath(p)
	if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
		return false
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		if d == "internal" || d == "vendor" || d == "testdata" {
			return false
		}
	}
	return true
}

// goDecl reads the exported declaration on one line, given the block
// ("type", "var", "const" or "") the line is in, and returns the block the next
// line is in.
func goDecl(text, block string) (decl, string) {
	if m := goBlockOpen().FindStringSubmatch(text); m != nil {
		return decl{}, m[1]
	}
	if block != "" {
		if strings.HasPrefix(text, ")") {
			return decl{}, ""
		}
		if m := goBlockItem().FindStringSubmatch(text); m != nil {
			return decl{kind: block, name: m[1], text: text}, block
		}
		return decl{}, block
	}
	if m := goFuncDecl().FindStringSubmatch(text); m != nil {
		recv, name := m[1], m[2]
		if !exported(name) || (recv != "" && !exported(recv)) {
			return decl{}, ""
		}
		if recv != "" {
			return decl{kind: "method", name: recv + "." + name, text: text}, ""
		}
		return decl{kind: "func", name: name, text: text}, ""
	}
	if m := goTopDecl().FindStringSubmatch(text); m != nil && exported(m[2]) {
		return decl{kind: m[1], name: m[2], text: text}, ""
	}
	return decl{}, ""
}

func exported(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }

// signature is a declaration's line without a function's body: a change to a
// one-line function's body is not a change of its API.
func signature(d decl) string {
	if d.kind != "func" && d.kind != "method" {
		return d.text
	}
	parens, braces := 0, 0
	for i, r := range d.text {
		switch r {
		case '(', '[':
			parens++
		case ')', ']':
			parens--
		case '}':
			braces--
		case '{':
			if parens == 0 && braces == 0 {
				before := strings.TrimRight(d.text[:i], " \t")
				if !strings.HasSuffix(before, "interface") && !strings.HasSuffix(before, "struct") {
					return before
				}
			}
			braces++
		}
	}
	return d.text
}
