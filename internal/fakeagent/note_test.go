package fakeagent

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNoteAppearsWhole: a file the agent notes to (its pids) appears with its
// first line in it: a test waiting for the file, then killing the agent,
// never reads it empty. A second note appends.
func TestNoteAppearsWhole(t *testing.T) {
	for i := range 300 {
		dir := t.TempDir()
		a := &agent{dir: dir}
		path := filepath.Join(dir, "pids")
		done := make(chan struct{})
		go func() { a.note("pids", "12345"); close(done) }()
		for {
			b, err := os.ReadFile(path)
			if err == nil {
				if len(b) == 0 {
					t.Fatalf("note %d: the file was read empty, before its line", i)
				}
				break
			}
			select {
			case <-done:
				if _, err := os.Stat(path); err != nil {
					t.Fatalf("note %d: no file: %v", i, err)
				}
			default:
			}
		}
		<-done
	}
	dir := t.TempDir()
	a := &agent{dir: dir}
	a.note("pids", "1")
	a.note("pids", "2")
	if b, _ := os.ReadFile(filepath.Join(dir, "pids")); string(b) != "1\n2\n" {
		t.Errorf("two notes: %q, want both lines", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
