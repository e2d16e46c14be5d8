package proc

import (
	"regexp"
	"strings"
)

// npmShimLine is the last line of a command shim npm writes (its cmd-shim) for
// a package's program: the program runs by itself ("%dp0%\x.exe" %*), or an
// interpreter runs its script ("%_prog%" "%dp0%\x\cli.js" %*).
var npmShimLine = regexp.MustCompile(`(?:^|& )(?:("%_prog%")\s+)?"%dp0%\\([^"]+)"\s+%\*\s*$`)

// npmShimProg is the interpreter an npm shim runs when no copy of it sits
// beside the shim: SET "_prog=node".
var npmShimProg = regexp.MustCompile(`(?m)^\s*SET "_prog=([^"%\\]+)"\s*$`)

// npmShim reads what an npm command shim (a .cmd file) runs: the interpreter
// (prog, "" for a target that runs by itself) and the target, relative to the
// shim's folder. ok is false for any other batch file, or a shim that passes
// the interpreter arguments of its own.
func npmShim(text string) (prog, target string, ok bool) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.Contains(text, "SET dp0=%~dp0") {
		return "", "", false
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	m := npmShimLine.FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		return "", "", false
	}
	if m[1] == "" {
		return "", m[2], true
	}
	p := npmShimProg.FindStringSubmatch(text)
	if p == nil {
		return "", "", false
	}
	return p[1], m[2], true
}
