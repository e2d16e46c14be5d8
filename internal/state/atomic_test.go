package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary play a process that rewrites a file in a loop
// (STATE_TEST_REWRITE=path) until it is killed.
func TestMain(m *testing.M) {
	if path := os.Getenv("STATE_TEST_REWRITE"); path != "" {
		os.Exit(rewriteForever(path))
	}
	os.Exit(m.Run())
}

// fills are the two fillers of a version, by parity: a file mixing two
// consecutive versions has both.
var fills = [2]string{strings.Repeat("even ", 2<<20/5), strings.Repeat("odd! ", 2<<20/5)}

// version appends to buf the content of generation n: a JSON document large
// enough that writing it takes a while, cheap to build, so a rewriter spends
// most of its time writing.
func version(buf []byte, n int) []byte {
	buf = append(buf[:0], `{"generation":`...)
	buf = strconv.AppendInt(buf, int64(n), 10)
	buf = append(buf, `,"fill":"`...)
	buf = append(buf, fills[n%2]...)
	return append(buf, `"}`...)
}

// generation parses a file written by rewriteForever and checks that it is one
// whole version, not a mix of two or a truncated one.
func generation(b []byte) (int, error) {
	var doc struct {
		Generation int `json:"generation"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return 0, fmt.Errorf("not valid JSON (%d bytes): %w", len(b), err)
	}
	if !bytes.Equal(b, version(nil, doc.Generation)) {
		return 0, fmt.Errorf("generation %d is not the whole version it claims", doc.Generation)
	}
	return doc.Generation, nil
}

// rewriteForever writes generation 1, 2, 3, … to path with WriteFileAtomic,
// printing each generation once it is written.
func rewriteForever(path string) int {
	var buf []byte
	for n := 1; ; n++ {
		buf = version(buf, n)
		if err := WriteFileAtomic(path, buf, FilePerm); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(n)
	}
}

// A process rewriting the file is SIGKILLed at random moments: afterwards the
// file always holds one whole version, the last one written or the next, never
// a mix or a truncated file (a plain os.WriteFile fails this at once).
func TestWriteFileAtomicSurvivesKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills a helper process a dozen times")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for round := range 12 {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "STATE_TEST_REWRITE="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until one to three generations are on disk, then kill at a
		// random moment of the next few milliseconds.
		lines := bufio.NewReader(out)
		var seen strings.Builder
		for range 1 + rng.IntN(3) {
			l, err := lines.ReadString('\n')
			seen.WriteString(l)
			if err != nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("round %d: the rewriter stopped: %v", round, err)
			}
		}
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond) // the random moment, not a wait
		_ = cmd.Process.Signal(syscall.SIGKILL)
		rest, _ := io.ReadAll(lines)
		_ = cmd.Wait()
		written := lastNumber(seen.String() + string(rest))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		got, err := generation(b)
		if err != nil {
			t.Fatalf("round %d, killed after generation %d was written: %v", round, written, err)
		}
		if got != written && got != written+1 {
			t.Fatalf("round %d: file holds generation %d, the last written was %d", round, got, written)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "state.json" && !strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("unexpected file %s", e.Name())
		}
	}
}

// lastNumber is the last complete line of out as a number (0 when none).
func lastNumber(out string) int {
	lines := strings.Split(out, "\n")
	for i := len(lines) - 2; i >= 0; i-- { // the part after the last \n may be cut
		if n, err := strconv.Atoi(lines[i]); err == nil {
			return n
		}
	}
	return 0
}

// faultFile is a real temporary file whose operations are recorded and may fail.
type faultFile struct {
	*os.File
	ops       *[]string
	writeErr  error // returned after writing half the data
	syncErr   error
	closeOnce bool
}

func (f *faultFile) Write(p []byte) (int, error) {
	*f.ops = append(*f.ops, "write")
	if f.writeErr != nil {
		n, _ := f.File.Write(p[:len(p)/2])
		return n, f.writeErr
	}
	return f.File.Write(p)
}

func (f *faultFile) Sync() error {
	*f.ops = append(*f.ops, "sync")
	if f.syncErr != nil {
		return f.syncErr
	}
	return f.File.Sync()
}

func (f *faultFile) Close() error {
	if !f.closeOnce {
		*f.ops = append(*f.ops, "close")
		f.closeOnce = true
	}
	return f.File.Close()
}

// faults describes what an injected file system does wrong.
type faults struct {
	write, sync, rename, syncDir error
}

// faultWriter returns a writer over the real file system that records its
// operations in ops and fails as fs says.
func faultWriter(ops *[]string, fs faults) AtomicWriter {
	return AtomicWriter{
		CreateTemp: func(dir, pattern string) (TempFile, error) {
			f, err := os.CreateTemp(dir, pattern)
			if err != nil {
				return nil, err
			}
			*ops = append(*ops, "create")
			return &faultFile{File: f, ops: ops, writeErr: fs.write, syncErr: fs.sync}, nil
		},
		Rename: func(oldpath, newpath string) error {
			*ops = append(*ops, "rename")
			if fs.rename != nil {
				return fs.rename
			}
			return os.Rename(oldpath, newpath)
		},
		SyncDir: func(dir string) error {
			*ops = append(*ops, "syncdir")
			if fs.syncDir != nil {
				return fs.syncDir
			}
			return syncDir(dir)
		},
	}
}

// The data reaches the disk before the rename makes it the file, and the rename
// is made durable by syncing the directory after it.
func TestAtomicWriterSyncsBeforeRenameAndDirAfter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	var ops []string
	if err := faultWriter(&ops, faults{}).WriteFile(path, []byte("new"), FilePerm); err != nil {
		t.Fatal(err)
	}
	want := []string{"create", "write", "sync", "close", "rename", "syncdir"}
	if !slices.Equal(ops, want) {
		t.Errorf("operations %v, want %v", ops, want)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("content %q, want new", b)
	}
}

// A volatile write replaces the file the same way and syncs nothing: no disk
// flush for a file a person watches (a run's live status, every second).
func TestAtomicWriterVolatileSyncsNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "build.live")
	if err := os.WriteFile(path, []byte("old"), FilePerm); err != nil {
		t.Fatal(err)
	}
	var ops []string
	w := faultWriter(&ops, faults{})
	w.Volatile = true
	if err := w.WriteFile(path, []byte("new"), FilePerm); err != nil {
		t.Fatal(err)
	}
	want := []string{"create", "write", "close", "rename"}
	if !slices.Equal(ops, want) {
		t.Errorf("operations %v, want %v", ops, want)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("content %q, want new", b)
	}
}

// A full disk, a failed sync or a failed rename leaves the old content in place,
// no temporary file behind, and an error that says what failed.
func TestAtomicWriterFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		faults  faults
		is      error
		content string // of the file after the failed write
	}{
		{"disk full", faults{write: syscall.ENOSPC}, syscall.ENOSPC, "old"},
		{"sync fails", faults{sync: syscall.EIO}, syscall.EIO, "old"},
		{"rename fails", faults{rename: syscall.EXDEV}, syscall.EXDEV, "old"},
		// the rename happened: the new content is there, but its durability is
		// not known, which the caller must hear
		{"directory sync fails", faults{syncDir: syscall.EIO}, syscall.EIO, "new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			if err := os.WriteFile(path, []byte("old"), FilePerm); err != nil {
				t.Fatal(err)
			}
			var ops []string
			err := faultWriter(&ops, tt.faults).WriteFile(path, []byte("new"), FilePerm)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v, want one naming %s and wrapping %v", err, path, tt.is)
			}
			if b, _ := os.ReadFile(path); string(b) != tt.content {
				t.Errorf("content after the failure %q, want %q", b, tt.content)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("directory holds %v, want only state.json (operations %v)", names, ops)
			}
		})
	}
}

// Meanwhile (the history's sync, in Store.Save) runs while the data is
// written and synced, not before nor after: the two flushes overlap. The file
// is replaced only once it returned; when it fails, the old content stays,
// no temporary file is left and the error says what failed.
func TestAtomicWriterMeanwhile(t *testing.T) {
	t.Parallel()
	for _, fail := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.json")
		if err := os.WriteFile(path, []byte("old"), FilePerm); err != nil {
			t.Fatal(err)
		}
		var ops []string
		w := faultWriter(&ops, faults{})
		created := make(chan struct{})
		inner := w.CreateTemp
		w.CreateTemp = func(dir, pattern string) (TempFile, error) {
			f, err := inner(dir, pattern)
			close(created)
			return f, err
		}
		logErr := errors.New("the log's disk failed")
		w.Meanwhile = func() error {
			select {
			case <-created: // the write began while this runs
			case <-time.After(10 * time.Second):
				return errors.New("the write did not begin while Meanwhile ran")
			}
			if fail {
				return logErr
			}
			return nil
		}
		err := w.WriteFile(path, []byte("new"), FilePerm)
		want, content := []string{"create", "write", "sync", "close", "rename", "syncdir"}, "new"
		if fail {
			want, content = []string{"create", "write", "sync", "close"}, "old"
			if !errors.Is(err, logErr) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v, want one naming %s and wrapping the failure of Meanwhile", err, path)
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ops, want) {
			t.Errorf("fail %v: operations %v, want %v", fail, ops, want)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("fail %v: content %q, want %q", fail, b, content)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("fail %v: %d entries in the folder, want only the file", fail, len(entries))
		}
	}
}
