package diff

import (
	"path"
	"strings"
)

// Glob reports whether the slash-separated path p matches pattern. Segments match
// as in [path.Match]; a "**" segment matches any number of directories, including
// none. As in .gitignore, a pattern without a slash (other than a trailing one)
// matches at any depth ("*.pem", "go.mod"), a leading slash anchors it at the top,
// and a pattern that matches a directory matches everything under it ("auth",
// "internal/auth", ".github/"). A trailing slash matches directories only.
func Glob(pattern, p string) bool {
	p = cleanPath(p)
	if pattern == "" || p == "" {
		return false
	}
	dirOnly := strings.HasSuffix(pattern, "/")
	pattern = strings.TrimSuffix(pattern, "/")
	switch {
	case strings.HasPrefix(pattern, "/"):
		pattern = strings.TrimLeft(pattern, "/")
	case !strings.Contains(pattern, "/"):
		pattern = "**/" + pattern
	}
	ps := strings.Split(pattern, "/")
	segs := strings.Split(p, "/")
	// The path itself, then each of its directories.
	last := len(segs)
	if dirOnly {
		last--
	}
	for n := last; n >= 1; n-- {
		if matchSegs(ps, segs[:n]) {
			return true
		}
	}
	return false
}

// matchSegs matches pattern segments against path segments.
func matchSegs(ps, segs []string) bool {
	for len(ps) > 0 {
		if ps[0] == "**" {
			for len(ps) > 0 && ps[0] == "**" {
				ps = ps[1:]
			}
			if len(ps) == 0 {
				return true
			}
			for i := 0; i <= len(segs); i++ {
				if matchSegs(ps, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(ps[0], segs[0]); err != nil || !ok {
			return false
		}
		ps, segs = ps[1:], segs[1:]
	}
	return len(segs) == 0
}

// cleanPath makes p a clean relative slash path ("" when it is empty).
func cleanPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	p = path.Clean("/" + p)[1:]
	return p
}

// matchAny reports whether p matches any of the patterns.
func matchAny(patterns []string, p string) bool {
	for _, g := range patterns {
		if Glob(g, p) {
			return true
		}
	}
	return false
}
