package gitx

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestCommitWriterWritesWhatGitWrites: once it learned from a commit git
// made, the writer writes the commit git commit-tree would write at the same
// time, byte for byte and under the same name, in a SHA-1 and a SHA-256
// repository, with the identity git found (configured, or the environment's);
// the object is one git reads and fsck accepts.
func TestCommitWriterWritesWhatGitWrites(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		env          []string
	}{
		{"sha1", "sha1", nil},
		{"sha256", "sha256", nil},
		{"identity from the environment", "sha1", []string{"GIT_AUTHOR_NAME=Àuthor Name", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=Committer", "GIT_COMMITTER_EMAIL=c@example.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needGit(t)
			dir := t.TempDir()
			run(t, dir, "init", "-q", "--object-format="+tc.format)
			run(t, dir, "config", "user.name", "Tester")
			run(t, dir, "config", "user.email", "tester@example.com")
			write(t, dir, map[string]string{"a.go": "package a\n"})
			run(t, dir, "add", "-A")
			tree := run(t, dir, "write-tree")
			commitTree := func(message string, at time.Time, parents ...string) string {
				t.Helper()
				args := []string{"commit-tree", "--no-gpg-sign", tree, "-F", "-"}
				for _, p := range parents {
					args = append(args, "-p", p)
				}
				date := "@" + itoa(int(at.Unix())) + " " + at.Format("-0700")
				out, err := cmd{dir: dir, stdin: strings.NewReader(message), args: args,
					env: append([]string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, tc.env...)}.run(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return strings.TrimSpace(out)
			}
			zone := time.FixedZone("", -(3*3600 + 30*60))
			first := commitTree("agentloop build: before attempt 1\n", time.Unix(1700000000, 0).In(zone))
			// The writer's clock is in the zone git's dates are in (the
			// environment's TZ, read alike by both).
			at := time.Unix(1700000123, 0).In(zone)
			w := commitWriter{now: func() time.Time { return at }}
			w.learn(filepath.Join(dir, ".git"), filepath.Join(dir, ".git"), first)
			if !w.learned {
				t.Fatal("the writer learned nothing from git's commit")
			}
			for _, message := range []string{"agentloop build: attempt 1 (iteration 1)\n", "no newline at the end", "ünïcode\n\nbody\n"} {
				got, ok := w.write(tree, []string{first}, message)
				if !ok {
					t.Fatalf("the writer did not write %q", message)
				}
				if want := commitTree(message, at, first); got != want {
					t.Errorf("the writer's commit of %q is %s, git's %s:\n%s", message, got, want, run(t, dir, "cat-file", "-p", want))
				}
			}
			if out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling").CombinedOutput(); err != nil {
				t.Errorf("git fsck: %v: %s", err, out)
			}
		})
	}
}

// TestCommitWriterLeavesToGit: the writer does not write what it cannot tell
// git would write alike: before it learned, when the environment sets the
// dates, for a message that is not UTF-8 (git would convert it), after a
// commit with a header more (an encoding).
func TestCommitWriterLeavesToGit(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	tree := run(t, dir, "rev-parse", "HEAD^{tree}")
	head := run(t, dir, "rev-parse", "HEAD")
	common := filepath.Join(dir, ".git")
	var w commitWriter
	if _, ok := w.write(tree, []string{head}, "m\n"); ok {
		t.Error("the writer wrote before it learned")
	}
	commit := run(t, dir, "commit-tree", "--no-gpg-sign", tree, "-m", "m")
	t.Run("dates set", func(t *testing.T) {
		t.Setenv("GIT_COMMITTER_DATE", "@1700000000 +0000")
		var w commitWriter
		w.learn(common, common, commit)
		if w.learned {
			t.Error("the writer learned with GIT_COMMITTER_DATE set")
		}
	})
	for _, c := range []struct{ name, key, value string }{
		{"core.fsync in the repository's configuration", "core.fsync", "loose-object"},
		{"core.fsyncObjectFiles in it", "core.fsyncObjectFiles", "true"},
		{"an include it does not follow", "include.path", "more.conf"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, dir, "config", c.key, c.value)
			defer run(t, dir, "config", "--unset", c.key)
			var w commitWriter
			if w.learn(common, common, commit); w.learned {
				t.Errorf("the writer learned with %s set: git would sync what it writes", c.key)
			}
		})
	}
	t.Run("core.fsync in the environment", func(t *testing.T) {
		t.Setenv("GIT_CONFIG_COUNT", "1")
		t.Setenv("GIT_CONFIG_KEY_0", "core.fsync")
		t.Setenv("GIT_CONFIG_VALUE_0", "all")
		var w commitWriter
		if w.learn(common, common, commit); w.learned {
			t.Error("the writer learned with core.fsync in GIT_CONFIG_KEY_0")
		}
	})
	t.Run("core.fsync in the global configuration", func(t *testing.T) {
		global := filepath.Join(t.TempDir(), "gitconfig")
		if err := os.WriteFile(global, []byte("[core]\n\tfsync = committed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("GIT_CONFIG_GLOBAL", global)
		var w commitWriter
		if w.learn(common, common, commit); w.learned {
			t.Error("the writer learned with core.fsync in the global configuration")
		}
	})
	w.learn(common, common, commit)
	if !w.learned {
		t.Fatal("the writer learned nothing")
	}
	if _, ok := w.write(tree, []string{head}, "caf\xe9\n"); ok {
		t.Error("the writer wrote a message that is not UTF-8")
	}
	run(t, dir, "config", "i18n.commitEncoding", "ISO-8859-1")
	encoded := run(t, dir, "commit-tree", "--no-gpg-sign", tree, "-m", "m2")
	var w2 commitWriter
	w2.learn(common, common, encoded)
	if w2.learned {
		t.Error("the writer learned from a commit with an encoding header")
	}
}

// TestZlibStored: what zlibStored writes inflates to what it was given, an
// empty input and one longer than a stored block included.
func TestZlibStored(t *testing.T) {
	for _, n := range []int{0, 1, 200, 65535, 65536, 200000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		z, err := zlib.NewReader(bytes.NewReader(zlibStored(data)))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes: inflated %d bytes, %v", n, len(got), err)
		}
	}
}

// TestCommitWriterAllocatesLittle: a commit written costs about its own
// bytes, not a compressor's tables (650 kB with compress/flate).
func TestCommitWriterAllocatesLittle(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"})
	tree := run(t, dir, "rev-parse", "HEAD^{tree}")
	head := run(t, dir, "rev-parse", "HEAD")
	var w commitWriter
	w.learn(filepath.Join(dir, ".git"), filepath.Join(dir, ".git"), run(t, dir, "commit-tree", "--no-gpg-sign", tree, "-m", "m"))
	if !w.learned {
		t.Fatal("the writer learned nothing")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range 3 {
		if _, ok := w.write(tree, []string{head}, "agentloop build: attempt "+itoa(i)+"\n"); !ok {
			t.Fatal("the writer did not write")
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("3 commits written allocated %d bytes, want under 64 KiB", n)
	}
}
