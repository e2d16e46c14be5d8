package tasks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzTickMarkdown: ticking any line of any plan either changes exactly one
// byte (the space of "[ ]" becoming "x") or fails and leaves the file as it was.
func FuzzTickMarkdown(f *testing.F) {
	f.Add([]byte("# Plan\n\n- [ ] First (id: first)\n- [x] Done\n"), 3)
	f.Add([]byte("* [ ] a\r\n  - [ ] nested\r\n"), 2)
	f.Add([]byte("- [ ]\n"), 1)
	f.Add([]byte(""), 0)
	f.Fuzz(func(t *testing.T, plan []byte, line int) {
		path := filepath.Join(t.TempDir(), "plan.md")
		if err := os.WriteFile(path, plan, 0o644); err != nil {
			t.Fatal(err)
		}
		err := TickMarkdown(path, line)
		got, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			if !bytes.Equal(got, plan) {
				t.Fatalf("TickMarkdown failed (%v) yet changed the file", err)
			}
			return
		}
		if len(got) != len(plan) {
			t.Fatalf("TickMarkdown changed the length: %d → %d", len(plan), len(got))
		}
		diff := 0
		for i := range got {
			if got[i] != plan[i] {
				diff++
				if plan[i] != ' ' || got[i] != 'x' {
					t.Fatalf("TickMarkdown changed byte %d from %q to %q", i, plan[i], got[i])
				}
			}
		}
		if diff > 1 {
			t.Fatalf("TickMarkdown changed %d bytes, want at most one", diff)
		}
	})
}
