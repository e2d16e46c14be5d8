package gitx

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// repo is what agentloop learns once about a work tree: its top directory, its
// git directories, the path of the user's index, and HEAD's commit and tree
// when it has one.
type repo struct {
	top       string
	gitDir    string // the work tree's own git directory (a linked worktree has one of its own)
	commonDir string // the git directory shared by all work trees: where refs live
	userIndex string
	head      Checkpoint // HEAD as the repository was opened; empty before the first commit
}

// openRepo finds the work tree holding dir, with one git process.
func openRepo(ctx context.Context, dir string) (repo, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-path", "index", "--git-common-dir",
		"--revs-only", "HEAD^{commit}", "HEAD^{tree}")
	if err != nil {
		return repo{}, fmt.Errorf("find the work tree of %s (is it a git repository?): %w", dir, err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if (len(lines) != 4 && len(lines) != 6) || lines[0] == "" {
		return repo{}, fmt.Errorf("find the work tree of %s: it has none (bare repository?)", dir)
	}
	r := repo{top: lines[0], gitDir: lines[1], userIndex: lines[2], commonDir: lines[3]}
	for _, p := range []*string{&r.userIndex, &r.commonDir} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	if len(lines) == 6 {
		r.head = Checkpoint{Commit: lines[4], Tree: lines[5]}
	}
	return r, nil
}

// indexPrefix names agentloop's private index files in a git directory; the
// owner's process id follows it, so a file left by a killed process is found
// and removed ([removeStale]).
const indexPrefix = "agentloop-index-"

// privateIndex is an index file of agentloop's own, in the work tree's git
// directory: commands run with it read and write that file, never the user's
// index. It is seeded once with a copy of the user's index, so that git reuses
// its stat cache, and then kept: each later staging only re-hashes the files
// whose stat data changed, untracked ones included, which is what makes a
// checkpoint cost about one `git add -A` of what changed.
type privateIndex struct {
	top  string
	path string
}

// openIndex creates a private index for r. The caller must call close.
func openIndex(ctx context.Context, r repo) (*privateIndex, error) {
	removeStale(r.gitDir)
	f, err := os.CreateTemp(r.gitDir, indexPrefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, fmt.Errorf("create a private index in %s: %w", r.gitDir, err)
	}
	path := f.Name()
	f.Close()
	ix := &privateIndex{top: r.top, path: path}
	data, err := copyFile(r.userIndex, path)
	if err != nil {
		if !os.IsNotExist(err) {
			ix.close()
			return nil, fmt.Errorf("copy the index: %w", err)
		}
		_ = ix.reset()
		return ix, nil
	}
	// The user may track a state directory; a checkpoint never records it.
	if !mayListStateDir(data) {
		return ix, nil
	}
	if _, err := ix.git(ctx, nil, "rm", "-r", "-q", "-f", "--cached", "--ignore-unmatch", "--", stateSpec()); err != nil {
		if err := ix.reset(); err != nil {
			ix.close()
			return nil, err
		}
	}
	return ix, nil
}

// mayListStateDir reports whether an index file may have entries in a
// [StateDir]. Versions 2 and 3 store every path whole, so an index whose bytes
// do not hold "StateDir/" has none — unless it is split ("link" extension) and
// its entries are in another file. Anything else may.
func mayListStateDir(index []byte) bool {
	if len(index) < 12 || string(index[:4]) != "DIRC" {
		return true
	}
	if v := binary.BigEndian.Uint32(index[4:8]); v != 2 && v != 3 {
		return true
	}
	return bytes.Contains(index, []byte(StateDir+"/")) || bytes.Contains(index, []byte("link"))
}

// removeStale removes the private indexes and the temporary ref files of
// processes that are gone.
func removeStale(gitDir string) {
	for _, prefix := range []string{indexPrefix, refTempPrefix} {
		paths, _ := filepath.Glob(filepath.Join(gitDir, prefix+"*"))
		for _, p := range paths {
			rest := strings.TrimPrefix(filepath.Base(p), prefix)
			pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
			if err != nil || pid == os.Getpid() || processAlive(pid) {
				continue
			}
			_ = os.Remove(p)
			_ = os.Remove(p + ".lock")
		}
	}
}

// close removes the private index.
func (ix *privateIndex) close() {
	_ = os.Remove(ix.path)
	_ = os.Remove(ix.path + ".lock")
}

// git runs git at the top of the work tree with the private index.
func (ix *privateIndex) git(ctx context.Context, env []string, args ...string) (string, error) {
	env = append([]string{"GIT_INDEX_FILE=" + ix.path}, env...)
	return cmd{dir: ix.top, env: env, args: args}.run(ctx)
}

// stage makes the private index hold the whole work tree (tracked and untracked
// files, not ignored ones, never [StateDir]) and returns its tree object.
func (ix *privateIndex) stage(ctx context.Context) (string, error) {
	if _, err := ix.git(ctx, nil, "add", "-A", "--", ":/", stateExclude()); err != nil {
		// A copied index can be unusable (split index, a newer format): start empty.
		if rerr := ix.reset(); rerr != nil {
			return "", err
		}
		if _, err := ix.git(ctx, nil, "add", "-A", "--", ":/", stateExclude()); err != nil {
			return "", err
		}
	}
	tree, err := ix.git(ctx, nil, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(tree), nil
}

// reset empties the private index.
func (ix *privateIndex) reset() error {
	if err := os.Remove(ix.path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("reset the private index: %w", err)
	}
	return nil
}

// topLevel returns the top directory of the work tree holding dir.
func topLevel(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("find the work tree of %s (is it a git repository?): %w", dir, err)
	}
	top := strings.TrimSpace(out)
	if top == "" {
		return "", fmt.Errorf("find the work tree of %s: it has none (bare repository?)", dir)
	}
	return top, nil
}

// copyFile copies src to dst keeping src's modification time (git compares the
// index's own mtime with its entries' to detect racily clean files), and
// returns what it copied.
func copyFile(src, dst string) ([]byte, error) {
	in, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		return nil, err
	}
	return data, os.Chtimes(dst, st.ModTime(), st.ModTime())
}

// WorkTreeOf is the work tree holding dir, its top directory, and the git
// folder its repository's work trees share (where a lock every loop of the
// repository finds belongs).
func WorkTreeOf(ctx context.Context, dir string) (top, commonDir string, err error) {
	r, err := openRepo(ctx, dir)
	if err != nil {
		return "", "", err
	}
	return r.top, r.commonDir, nil
}
