package gitx

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/testenv"
)

// TestMain isolates every git command the tests run from the machine's git
// configuration: no global or system config, so no user identity either.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "gitx-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL": filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1",
		"EMAIL": "", "GIT_SSL_CAINFO": "", "GIT_AUTHOR_NAME": "", "GIT_AUTHOR_EMAIL": "", "GIT_COMMITTER_NAME": "", "GIT_COMMITTER_EMAIL": "",
	} {
		if v == "" {
			os.Unsetenv(k)
		} else {
			os.Setenv(k, v)
		}
	}
	// Without this, git may invent an identity from the user and host names.
	if err := os.WriteFile(filepath.Join(home, "gitconfig"), []byte("[user]\n\tuseConfigOnly = true\n"), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// needGit skips the test when git is not installed (fails it under CI=true).
func needGit(t *testing.T) {
	t.Helper()
	testenv.NeedTool(t, "git")
}

// run runs git in dir for test setup and fails the test on error.
func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(t.Context(), dir, args...)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	return strings.TrimSpace(out)
}

// newRepo creates a repository with a configured identity; with files, it
// writes and commits them.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	run(t, dir, "config", "user.name", "Tester")
	run(t, dir, "config", "user.email", "tester@example.com")
	if files != nil {
		write(t, dir, files)
		run(t, dir, "add", "-A")
		run(t, dir, "commit", "-q", "-m", "initial")
	}
	return dir
}

// write writes files (path → content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree reads every file under dir except .git into path → content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			got[filepath.ToSlash(rel)] = "-> " + target
			return err
		}
		b, err := os.ReadFile(p)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// dirs lists every directory under dir except .git, sorted.
func dirs(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(got)
	return got
}

// gitState is what must never change under Snapshot, Restore and Diff: HEAD,
// the branch, the index and the status as the user sees it.
func gitState(t *testing.T, dir string) string {
	t.Helper()
	head, _ := git(t.Context(), dir, "rev-parse", "-q", "--verify", "HEAD")
	branch, _ := git(t.Context(), dir, "symbolic-ref", "-q", "HEAD")
	index := run(t, dir, "ls-files", "-s")
	return "HEAD=" + strings.TrimSpace(head) + "\nbranch=" + strings.TrimSpace(branch) + "\nindex=\n" + index
}
