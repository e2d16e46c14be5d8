package state

import (
	"fmt"
	"os"
	"path/filepath"
)

// DirPerm and FilePerm are the modes of everything the store creates.
const (
	DirPerm  os.FileMode = 0o700
	FilePerm os.FileMode = 0o600
)

// EnsureDir creates dir and its missing parents with mode 0700.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return fmt.Errorf("create directory: %w", err)
	}
	return nil
}

// WriteFileAtomic replaces path with data so that a reader sees either the old
// or the new content, even after a crash: it writes a temporary file in the same
// directory, syncs it, renames it over path and syncs the directory.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return AtomicWriter{}.WriteFile(path, data, perm)
}

// WriteFileVolatile replaces path with data so that a reader sees either the
// old or the new content, without making either durable: nothing is synced,
// so it costs no disk flush. It is for files a person watches and nothing
// recovers from (a run's live status, written every second): after a power
// loss such a file may hold its old content or nothing.
func WriteFileVolatile(path string, data []byte, perm os.FileMode) error {
	return AtomicWriter{Volatile: true}.WriteFile(path, data, perm)
}

// AtomicWriter does [WriteFileAtomic] through file-system operations that a test
// may replace to inject a fault (a full disk, a failed rename) or to observe the
// syncs. A nil field is the real operation; the zero value is the real writer.
type AtomicWriter struct {
	CreateTemp func(dir, pattern string) (TempFile, error) // os.CreateTemp
	Rename     func(oldpath, newpath string) error         // os.Rename
	SyncDir    func(dir string) error                      // fsync of the directory
	Remove     func(path string) error                     // os.Remove (of the temporary file)
	Volatile   bool                                        // sync neither the file nor the directory ([WriteFileVolatile])
	// Meanwhile, when set, runs while the data is written and synced
	// (another file's sync: the two flushes overlap), and the file is
	// replaced only once it returned nil; its error fails the write. It
	// runs to its end whatever happens to the write.
	Meanwhile func() error
}

// TempFile is the temporary file an [AtomicWriter] writes; *os.File is one.
type TempFile interface {
	Name() string
	Chmod(os.FileMode) error
	Write([]byte) (int, error)
	Sync() error
	Close() error
}

// WriteFile replaces path with data; see [WriteFileAtomic]. On any error the
// file keeps its old content and no temporary file is left.
func (w AtomicWriter) WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	createTemp := w.CreateTemp
	if createTemp == nil {
		createTemp = func(dir, pattern string) (TempFile, error) { return os.CreateTemp(dir, pattern) }
	}
	rename, sync, remove := w.Rename, w.SyncDir, w.Remove
	if rename == nil {
		rename = renameOver
	}
	switch {
	case w.Volatile:
		sync = func(string) error { return nil }
	case sync == nil:
		sync = syncDir
	}
	if remove == nil {
		remove = os.Remove
	}
	meanwhile := func() error { return nil }
	if w.Meanwhile != nil {
		done := make(chan error, 1)
		go func() { done <- w.Meanwhile() }()
		var got error
		waited := false
		meanwhile = func() error {
			if !waited {
				got, waited = <-done, true
			}
			return got
		}
		defer func() {
			if err != nil {
				_ = meanwhile() // it ran to its end before the write reports
			}
		}()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !w.Volatile {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("write %s: sync: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := meanwhile(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := sync(dir); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
