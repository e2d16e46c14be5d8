package gitx

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// tempIndex is a private index file in a temporary directory: commands run with
// it read and write that file, never the user's index.
type tempIndex struct {
	top  string // the work tree's top directory
	dir  string // the temporary directory holding the index
	path string
}

// newTempIndex creates a private index for the work tree at dir, seeded with a
// copy of the user's index so that git reuses its stat cache (a full re-hash of a
// big tree is slow). The caller must call close.
func newTempIndex(ctx context.Context, dir string) (*tempIndex, error) {
	top, err := topLevel(ctx, dir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "agentloop-index-")
	if err != nil {
		return nil, fmt.Errorf("create temporary index: %w", err)
	}
	ix := &tempIndex{top: top, dir: tmp, path: filepath.Join(tmp, "index")}
	real, err := git(ctx, top, "rev-parse", "--git-path", "index")
	if err != nil {
		ix.close()
		return nil, err
	}
	real = strings.TrimSpace(real)
	if !filepath.IsAbs(real) {
		real = filepath.Join(top, real)
	}
	if err := copyFile(real, ix.path); err != nil && !os.IsNotExist(err) {
		ix.close()
		return nil, fmt.Errorf("copy the index: %w", err)
	}
	return ix, nil
}

// close removes the temporary index.
func (ix *tempIndex) close() { _ = os.RemoveAll(ix.dir) }

// git runs git at the top of the work tree with the private index.
func (ix *tempIndex) git(ctx context.Context, env []string, args ...string) (string, error) {
	env = append([]string{"GIT_INDEX_FILE=" + ix.path}, env...)
	return cmd{dir: ix.top, env: env, args: args}.run(ctx)
}

// stage makes the private index hold the whole work tree (tracked and untracked
// files, not ignored ones, never [StateDir]) and returns its tree object.
func (ix *tempIndex) stage(ctx context.Context) (string, error) {
	if _, err := ix.git(ctx, nil, "rm", "-r", "-q", "-f", "--cached", "--ignore-unmatch", "--", stateSpec()); err != nil {
		if err := ix.reset(ctx); err != nil {
			return "", err
		}
	}
	if _, err := ix.git(ctx, nil, "add", "-A", "--", ":/", stateExclude()); err != nil {
		// A copied index can be unusable (split index, a newer format): start empty.
		if rerr := ix.reset(ctx); rerr != nil {
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
func (ix *tempIndex) reset(ctx context.Context) error {
	if err := os.Remove(ix.path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("reset temporary index: %w", err)
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

// copyFile copies src to dst keeping src's modification time: git compares the
// index's own mtime with its entries' to detect racily clean files.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
}
