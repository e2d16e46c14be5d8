package diff

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// newDeps lists the dependencies the diff adds to a manifest (go.mod,
// package.json, requirements*.txt, Cargo.toml, pyproject.toml) as
// "name (file)". A dependency whose line is removed and added again in the same
// file (a version bump) is not new.
func newDeps(files []*fileDiff) []string {
	var out []string
	for _, f := range files {
		p := f.Path()
		var read func(text string, sec *section) string
		switch base := path.Base(p); {
		case base == "go.mod":
			read = goModDep
		case base == "package.json":
			read = npmDep
		case strings.HasPrefix(base, "requirements") && (strings.HasSuffix(base, ".txt") || strings.HasSuffix(base, ".in")):
			read = pipDep
		case base == "Cargo.toml":
			read = cargoDep
		case base == "pyproject.toml":
			read = pyprojectDep
		default:
			continue
		}
		added, removed := map[string]bool{}, map[string]bool{}
		var order []string
		sec := &section{}
		hunk := -1
		for _, l := range f.Lines {
			if l.Hunk != hunk {
				hunk, *sec = l.Hunk, section{}
			}
			if l.Op == '-' {
				if name := read(l.Text, &section{name: sec.name, known: sec.known, block: sec.block}); name != "" {
					removed[name] = true
				}
				continue
			}
			name := read(l.Text, sec)
			if l.Op == '+' && name != "" && !added[name] {
				added[name] = true
				order = append(order, name)
			}
		}
		for _, name := range order {
			if !removed[name] {
				out = append(out, name+" ("+p+")")
			}
		}
	}
	return uniq(out)
}

// section is where in a manifest a hunk's lines are, as far as its lines tell.
type section struct {
	name  string // the TOML table, JSON object key or go.mod block seen last
	known bool   // whether a header was seen in this hunk
	block bool   // inside a go.mod require ( … ) block
}

var (
	goReqLine  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*require\s+([^\s()]+)\s+v\S+`) })
	goBlockDep = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s+([^\s()/]+\.[^\s()]+|[^\s()]+/[^\s()]+)\s+v\d\S*`)
	})
)

func goModDep(text string, sec *section) string {
	t := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(t, "require ("):
		sec.block, sec.known = true, true
		return ""
	case strings.HasPrefix(t, "replace") || strings.HasPrefix(t, "exclude") || strings.HasPrefix(t, "retract") || strings.HasPrefix(t, "tool"):
		sec.block, sec.known = false, strings.HasSuffix(t, "(")
		return ""
	case t == ")":
		sec.block = false
		return ""
	case strings.Contains(t, "=>") || strings.Contains(t, "// indirect"):
		return ""
	}
	if m := goReqLine().FindStringSubmatch(text); m != nil {
		return m[1]
	}
	if (sec.block || !sec.known) && strings.HasPrefix(text, "\t") {
		if m := goBlockDep().FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	return ""
}

var (
	jsonObjKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*"([^"]+)"\s*:\s*\{`) })
	jsonPair   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*"([^"]+)"\s*:\s*"([^"]*)"`) })
	npmVersion = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:[\^~<>=v]*\s*\d|\*$|x$|latest$|next$|workspace:|npm:|file:|link:|git[+:]|github:|https?:|[\w.-]+/[\w.-]+(?:#.*)?$)`)
	})
)

func npmDep(text string, sec *section) string {
	if m := jsonObjKey().FindStringSubmatch(text); m != nil {
		sec.name, sec.known = m[1], true
		return ""
	}
	if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), ",")) == "}" {
		sec.name, sec.known = "", true
		return ""
	}
	m := jsonPair().FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	if sec.known {
		if strings.HasSuffix(sec.name, "ependencies") {
			return m[1]
		}
		return ""
	}
	if !npmField(m[1]) && npmVersion().MatchString(m[2]) {
		return m[1]
	}
	return ""
}

var pipName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;@ ]|$)`)
})

func pipDep(text string, _ *section) string {
	t := strings.TrimSpace(text)
	if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "-") {
		return ""
	}
	if m := pipName().FindStringSubmatch(t); m != nil {
		return normPy(m[1])
	}
	return ""
}

// normPy normalizes a Python distribution name (PEP 503).
func normPy(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(s))
}

var (
	tomlHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$`) })
	tomlKey    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z0-9_.-]+|"[^"]+")\s*=\s*(.*)$`) })
	tomlDepVal = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:"[^"]*\d[^"]*"|'[^']*\d[^']*'|"\*"|\{.*\b(?:version|path|git|workspace)\b)`)
	})
)

func cargoDep(text string, sec *section) string {
	if m := tomlHeader().FindStringSubmatch(text); m != nil {
		sec.name, sec.known = m[1], true
		// [dependencies.serde] names the dependency in its header.
		for _, p := range []string{"dependencies.", "dev-dependencies.", "build-dependencies."} {
			if i := strings.Index(m[1], p); i >= 0 {
				return strings.Trim(m[1][i+len(p):], `"`)
			}
		}
		return ""
	}
	m := tomlKey().FindStringSubmatch(text)
	if m == nil || cargoField(m[1]) {
		return ""
	}
	if sec.known {
		if strings.HasSuffix(sec.name, "dependencies") {
			return strings.Trim(m[1], `"`)
		}
		return ""
	}
	if tomlDepVal().MatchString(strings.TrimSpace(m[2])) {
		return strings.Trim(m[1], `"`)
	}
	return ""
}

var pyReqString = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:dependencies\s*=\s*\[\s*)?["']([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;@ ][^"']*)?["']\s*,?\s*\]?\s*$`)
})

func pyprojectDep(text string, sec *section) string {
	if m := tomlHeader().FindStringSubmatch(text); m != nil {
		sec.name, sec.known = m[1], true
		return ""
	}
	if m := pyReqString().FindStringSubmatch(text); m != nil {
		return normPy(m[1])
	}
	if sec.known && strings.Contains(sec.name, "dependencies") {
		if m := tomlKey().FindStringSubmatch(text); m != nil && m[1] != "python" {
			return normPy(strings.Trim(m[1], `"`))
		}
	}
	return ""
}

// npmField reports whether key is a package.json field that looks like a
// dependency (a name and a version) but is not one.
func npmField(key string) bool {
	switch key {
	case "name", "version", "node", "npm", "yarn", "pnpm", "packageManager", "license", "main", "types", "module":
		return true
	}
	return false
}

// cargoField reports whether key is a Cargo.toml [package] field.
func cargoField(key string) bool {
	switch key {
	case "name", "version", "edition", "rust-version", "authors", "description", "license", "resolver":
		return true
	}
	return false
}
