package agent

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
)

// semver finds the first version number in a CLI's --version output
// ("2.1.197 (Claude Code)", "codex-cli 0.169.0", "0.61.0").
var semver = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(\d+)\.(\d+)\.(\d+)\b`) })

// InstalledVersion runs the program at path with --version and returns the
// version number it prints.
func InstalledVersion(ctx context.Context, path string) (string, error) {
	var out bytes.Buffer
	res, err := proc.Run(ctx, proc.Spec{Argv: []string{path, "--version"}, Stdout: &out, Stderr: &out,
		Timeout: 20 * time.Second, Grace: time.Second})
	if err != nil {
		return "", fmt.Errorf("ask %s its version: %w", path, err)
	}
	v := semver().FindString(out.String())
	if res.ExitCode != 0 || v == "" {
		return "", fmt.Errorf("ask %s its version: exit %d: %s", path, res.ExitCode, strings.TrimSpace(out.String()))
	}
	return v, nil
}

// VersionWarning says when the installed version of a preset's CLI has another
// major version than the one the preset was tested with, or "".
func VersionWarning(p Preset, installed string) string {
	if p.Tested == "" || installed == "" || major(installed) == major(p.Tested) {
		return ""
	}
	return fmt.Sprintf("%s %s is installed, but the %s preset is tested with %s: another major version may take other flags or print other output",
		p.Binary, installed, p.Name, p.Tested)
}

func major(v string) string {
	m := semver().FindStringSubmatch(v)
	if m == nil {
		return v
	}
	return m[1]
}
