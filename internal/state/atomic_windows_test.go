//go:build windows

package state

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A reader holding the file open (os.Open shares no deletion: agentloop
// status reading a run's state) does not fail the write: the rename over it
// waits until the reader lets go.
func TestWriteFileAtomicOverOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, func() { _ = r.Close() })
	if err := WriteFileAtomic(path, []byte("new"), FilePerm); err != nil {
		t.Fatalf("WriteFileAtomic over an open file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("content = %q, want new", b)
	}
}
