package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// CI reports whether this is a continuous-integration run (CI=true), where a
// missing tool is a failure, not a reason to skip.
func CI() bool { return os.Getenv("CI") == "true" }

// LookTool returns the path of the first of names found on PATH. When none is
// found, err says which program is missing and how to get it; under CI=true
// required is also true, which tells the caller to fail rather than skip.
func LookTool(names ...string) (path string, required bool, err error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, false, nil
		}
	}
	return "", CI(), fmt.Errorf("%s is not on PATH: install it (%s)", strings.Join(names, " or "), hint(names[0]))
}

// NeedTool returns the path of the first of names found on PATH. When none is,
// it skips the test with the reason, or fails it when CI=true.
func NeedTool(t testing.TB, names ...string) string {
	t.Helper()
	p, required, err := LookTool(names...)
	if err == nil {
		return p
	}
	if required {
		t.Fatalf("%v; CI=true, so every tool the tests use must be installed", err)
		return ""
	}
	t.Skip(err)
	return ""
}

// Condition is a testscript condition for a tool: true when the first of names
// is on PATH; when it is not, false, or an error (failing the script) under
// CI=true.
func Condition(names ...string) (bool, error) {
	_, required, err := LookTool(names...)
	if err == nil {
		return true, nil
	}
	if required {
		return false, fmt.Errorf("%w; CI=true, so every tool the tests use must be installed", err)
	}
	return false, nil
}

func hint(name string) string {
	switch name {
	case "git":
		return "apt-get install -y git"
	case "go":
		return "https://go.dev/dl"
	case "chromium":
		return "apt-get install -y chromium"
	case "bwrap":
		return "apt-get install -y bubblewrap"
	case "tmux":
		return "apt-get install -y tmux"
	case "gh":
		return "apt-get install -y gh"
	}
	return "with your package manager"
}
