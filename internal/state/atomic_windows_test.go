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

// A project in a folder whose path has spaces, under a drive letter
// (C:\Users\Jane Doe\My Project): its run is locked, saved and read back.
func TestStoreInFolderWithSpaces(t *testing.T) {
	root := filepath.Join(t.TempDir(), "Jane Doe", "My Project", ".agentloop")
	if filepath.VolumeName(root) == "" {
		t.Fatalf("temp dir %s has no drive letter", root)
	}
	s := Store{Root: root}
	l, err := s.Lock("demo")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	want := validState("demo")
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("demo")
	if err != nil || got.Name != want.Name {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	if !s.Owned("demo") {
		t.Error("the run's lock does not name this process")
	}
}
