package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/proc"
)

// project is a real suite, its gate and its one bug.
type project struct {
	name, runner, gate, format string
	env                        []string
	file                       string // the file the bug is in
	fix, bug                   string // the line as written, and with the bug
	setup                      func(ctx context.Context, src, dir string) error
	// floor is the flaky check's command (rerun, planned from the gate's
	// command, naming units) made to select no test: what the runner costs
	// before any test runs (build and link, import and collection,
	// start-up), in the same packages or files.
	floor func(rerun, gate string, units []string) string
}

func projects() map[string]project {
	return map[string]project{
		"csv": {
			name: "encoding/csv", runner: "go test", gate: "go test -count=1 -json ./...", format: "gotest-json", floor: goFloor,
			env:  []string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod"},
			file: "reader.go", fix: "\t\t\t\tpos.col += i + commaLen\n", bug: "\t\t\t\tpos.col += i\n",
			setup: func(ctx context.Context, _, dir string) error {
				root, err := output(ctx, "", "go", "env", "GOROOT")
				if err != nil {
					return err
				}
				if err := copyTree(filepath.Join(strings.TrimSpace(root), "src", "encoding", "csv"), dir); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/csv\n\ngo 1.24\n"), 0o644)
			},
		},
		"gotestsum": {
			name: "gotestsum v1.13.0", runner: "go test", gate: "go test -count=1 -json -skip=TestScanTestOutput_WithDotsFormatter ./...", format: "gotest-json", floor: goFloor,
			env:  []string{"GOTOOLCHAIN=local"},
			file: "testjson/execution.go", fix: "\t\ttotal += pkg.Total\n", bug: "\t\ttotal += pkg.Total + len(pkg.Skipped)\n",
			setup: func(ctx context.Context, _, dir string) error {
				out, err := output(ctx, "", "go", "mod", "download", "-json", "gotest.tools/gotestsum@v1.13.0")
				if err != nil {
					return err
				}
				var m struct{ Dir string }
				if err := json.Unmarshal([]byte(out), &m); err != nil || m.Dir == "" {
					return fmt.Errorf("go mod download: %v: %s", err, out)
				}
				return copyTree(m.Dir, dir)
			},
		},
		"click": {
			name: "click", runner: "pytest", format: "python", floor: func(cmd, _ string, _ []string) string { return cmd + " --collect-only -q" },
			gate: "/usr/bin/python3 -m pytest -p no:cacheprovider --ignore=tests/test_deprecations.py tests",
			env:  []string{"PYTHONPATH=src"},
			file: "src/click/formatting.py", fix: `_("Usage:")`, bug: `_("usage:")`,
			setup: checkout("click"),
		},
		"ufo": {
			name: "ufo", runner: "vitest", format: "vitest-json", gate: "./node_modules/.bin/vitest run --reporter=json",
			floor: func(_, gate string, units []string) string { return gate + " -t '^$' " + strings.Join(units, " ") },
			file:  "src/utils.ts", fix: `input.endsWith("/") ? input : input + "/";`, bug: `input.endsWith("/") ? input : input + "//";`,
			setup: checkout("ufo"),
		},
	}
}

// goFloor builds and runs the same packages' test binaries with no test.
func goFloor(_, gate string, units []string) string {
	return strings.Replace(gate, "./...", "-run=^$ "+strings.Join(units, " "), 1)
}

// checkout copies a checkout from src (with its installed node_modules).
func checkout(name string) func(context.Context, string, string) error {
	return func(_ context.Context, src, dir string) error {
		if src == "" {
			return fmt.Errorf("-src names no folder holding the %s checkout", name)
		}
		return copyTree(filepath.Join(src, name), dir)
	}
}

// edit puts the line want in the project's file in place of the other one.
func (p project) edit(dir, want string) error {
	path := filepath.Join(dir, p.file)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	other := p.bug
	if want == p.bug {
		other = p.fix
	}
	if bytes.Contains(b, []byte(want)) && !bytes.Contains(b, []byte(other)) {
		return nil
	}
	if !bytes.Contains(b, []byte(other)) {
		return fmt.Errorf("%s has neither the bug nor its fix", path)
	}
	return os.WriteFile(path, bytes.Replace(b, []byte(other), []byte(want), 1), 0o644)
}

func output(ctx context.Context, dir string, argv ...string) (string, error) {
	var b bytes.Buffer
	res, err := proc.Run(ctx, proc.Spec{Argv: argv, Dir: dir, Stdout: &b})
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("%s: exit %d", strings.Join(argv, " "), res.ExitCode)
	}
	return b.String(), err
}

// copyTree copies a folder (symbolic links as links), writable.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.IsDir():
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, info.Mode().Perm()|0o200)
	})
}
