package state

import (
	"errors"
	"os"
	"testing"
)

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"version":1,"name":"demo","status":"running"}`))
	f.Add([]byte(`{"version":1,"name":"demo","status":"done"}`))
	f.Add([]byte(`{"version":1,"name":"demo","status":"running","history":[{"n":1}],"spend":{"wall_ms":5}}`))
	f.Add([]byte("{\n  \"version\": x\n}"))
	f.Add([]byte(""))
	f.Add([]byte("null"))
	f.Add([]byte(`{"version":2,"name":"demo","status":"running"}`))
	f.Add([]byte(`{"version":0,"name":"demo","status":"running"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := Store{Root: t.TempDir()}
		if err := EnsureDir(s.StateDir()); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(s.StatePath("demo"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := s.Load("demo")
		if err == nil {
			if st == nil || st.Validate() != nil || st.Name != "demo" {
				t.Fatalf("Load accepted an invalid state: %+v", st)
			}
			return
		}
		if _, ok := errors.AsType[*NewerError](err); ok {
			if kept, err := os.ReadFile(s.StatePath("demo")); err != nil || string(kept) != string(data) {
				t.Fatalf("state file of a newer schema not left in place: %v", err)
			}
			return
		}
		ce, ok := errors.AsType[*CorruptError](err)
		if !ok {
			t.Fatalf("Load error %v is neither a *CorruptError nor a *NewerError", err)
		}
		if moved, err := os.ReadFile(ce.MovedTo); err != nil || string(moved) != string(data) {
			t.Fatalf("corrupt file not kept at %s: %v", ce.MovedTo, err)
		}
	})
}
