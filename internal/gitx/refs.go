package gitx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// refStore reads and writes agentloop's hidden refs (refs/agentloop/…). In a
// repository whose refs are files — git's default — a ref is a file under the
// common git directory holding a commit name, and a checkpoint writes it
// directly (a temporary file renamed into place, so a reader sees the old name
// or the new one) instead of starting a git process for it. The run's lock
// makes its process the only writer of its refs. Refs stored otherwise
// (reftable), names that need git's own checks, and anything unexpected go
// through git.
type refStore struct {
	top    string // where git runs
	gitDir string // where temporary files go (the work tree's git directory, on the same file system)
	common string // the common git directory, where refs live ("" when unknown: always git)
}

// refTempPrefix names the temporary files of ref writes in a git directory; the
// writer's process id follows it, so a file left by a killed process is found
// and removed ([removeStale]).
const refTempPrefix = "agentloop-ref-"

// files reports whether refs can be read and written as files.
func (r refStore) files() bool {
	if r.common == "" || r.gitDir == "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(r.common, "reftable")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return true
}

// set points ref at commit.
func (r refStore) set(ctx context.Context, ref, commit string) error {
	if plainRef(ref) && isObjectName(commit) && r.files() && r.writeFile(ref, commit) == nil {
		return nil
	}
	if _, err := git(ctx, r.top, "update-ref", "-m", "agentloop snapshot", ref, commit); err != nil {
		return fmt.Errorf("point %s at %s: %w", ref, short(commit), err)
	}
	return nil
}

// link makes ref, which does not exist, a second name of the loose file of
// from, which holds commit: no new file for a ref that names what another
// does (a ref file is never written in place, only replaced, so the two stay
// apart from then on). It reports whether it did; when it did not, nothing
// changed.
func (r refStore) link(from, ref, commit string) bool {
	if from == "" || !plainRef(from) || !plainRef(ref) || !isObjectName(commit) || !r.files() {
		return false
	}
	src, path := filepath.Join(r.common, filepath.FromSlash(from)), filepath.Join(r.common, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return false
	}
	if os.Link(src, path) != nil {
		return false // gone (packed), or ref exists
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != commit+"\n" {
		_ = os.Remove(path) // from was replaced since: ref is written on its own
		return false
	}
	return true
}

// writeFile writes ref as a loose ref file. The temporary file is written in
// the git directory, outside refs/, so that a kill part way leaves nothing git
// would take for a ref.
func (r refStore) writeFile(ref, commit string) error {
	path := filepath.Join(r.common, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(r.gitDir, refTempPrefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return err
	}
	_, werr := f.WriteString(commit + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
	}
	return werr
}

// get returns the commit ref points at, "" when ref does not exist: read from
// the files (loose, else packed: agentloop's refs name commits, and a
// worker's pack-refs packs them), else asked of git.
func (r refStore) get(ctx context.Context, ref string) string {
	if oid, ok := r.resolve(ref); ok {
		return oid
	}
	return resolveCommit(ctx, r.top, ref)
}

// plainRef reports whether ref is a name agentloop writes as a file itself: refs/…
// with components of letters, digits, '.', '_' and '-' that do not start with
// '.' or end with ".lock" (a subset of what git accepts). Other names go to git.
func plainRef(ref string) bool {
	parts := strings.Split(ref, "/")
	if len(parts) < 2 || parts[0] != "refs" {
		return false
	}
	for _, p := range parts[1:] {
		if p == "" || p[0] == '.' || strings.HasSuffix(p, ".lock") || strings.Contains(p, "..") {
			return false
		}
		for _, c := range p {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				return false
			}
		}
	}
	return true
}

// isObjectName reports whether s is a full SHA-1 or SHA-256 object name.
func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// loose reads the loose ref file of a plain ref: its object name and whether
// it exists; ok is false when it holds anything else (a symbolic ref, a ref
// being written), which only git can read.
func (r refStore) loose(ref string) (oid string, exists, ok bool) {
	b, err := os.ReadFile(filepath.Join(r.common, filepath.FromSlash(ref)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, true
	}
	if name := strings.TrimSpace(string(b)); err == nil && isObjectName(name) {
		return name, true, true
	}
	return "", false, false
}

// packed reads packed-refs: every ref in it with its object name (none when
// there is no such file); ok is false when a line is not one git writes.
func (r refStore) packed() (map[string]string, bool) {
	out := map[string]string{}
	b, err := os.ReadFile(filepath.Join(r.common, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return out, true
	}
	if err != nil {
		return nil, false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if line == "" || line[0] == '#' || line[0] == '^' { // the header, a tag's peeled commit
			continue
		}
		oid, ref, found := strings.Cut(line, " ")
		if !found || !isObjectName(oid) {
			return nil, false
		}
		out[ref] = oid
	}
	return out, true
}

// resolve returns the object name a plain ref holds, read from the files
// (the loose file, else packed-refs): "" when the ref does not exist. ok is
// false when git must be asked (refs not in files, a name or content git alone
// reads).
func (r refStore) resolve(ref string) (string, bool) {
	if !plainRef(ref) || !r.files() {
		return "", false
	}
	oid, exists, ok := r.loose(ref)
	if !ok || exists {
		return oid, ok
	}
	packed, ok := r.packed()
	return packed[ref], ok
}

// list returns the refs under prefix (a folder such as
// "refs/agentloop/NAME/RUN/") with their object names, read from the files as
// git would list them; ok is false when git must be asked.
func (r refStore) list(prefix string) (map[string]string, bool) {
	if !plainRef(strings.TrimSuffix(prefix, "/")) || !strings.HasSuffix(prefix, "/") || !r.files() {
		return nil, false
	}
	packed, ok := r.packed()
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	for ref, oid := range packed {
		if strings.HasPrefix(ref, prefix) {
			out[ref] = oid
		}
	}
	root := filepath.Join(r.common, filepath.FromSlash(prefix))
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll // no loose ref under prefix
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		ref := prefix + filepath.ToSlash(rel)
		if !plainRef(ref) || !d.Type().IsRegular() {
			return errNotPlain
		}
		oid, exists, ok := r.loose(ref)
		if !ok || !exists {
			return errNotPlain
		}
		out[ref] = oid
		return nil
	})
	if err != nil {
		return nil, false
	}
	return out, true
}

// errNotPlain stops a walk of the ref files at one only git can read.
var errNotPlain = errors.New("not a plain ref file")

// head reads HEAD of the work tree from its file: the branch it is on
// ("refs/heads/main"; "" when detached) and the commit it names ("" before the
// first one). ok is false when git must be asked (refs not in files, HEAD on
// something other than a branch).
func (r refStore) head() (branch, commit string, ok bool) {
	if !r.files() {
		return "", "", false
	}
	b, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return "", "", false
	}
	s := strings.TrimSpace(string(b))
	if target, sym := strings.CutPrefix(s, "ref: "); sym {
		if !strings.HasPrefix(target, "refs/heads/") {
			return "", "", false
		}
		commit, ok := r.resolve(target)
		return target, commit, ok
	}
	return "", s, isObjectName(s)
}
