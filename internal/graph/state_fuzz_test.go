package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzLoadState: a task graph's state file of any content is either read or
// moved aside with its bytes kept, never overwritten, and the state saved
// afterwards reads back.
func FuzzLoadState(f *testing.F) {
	f.Add([]byte(`{"version":1,"file":"tasks.yaml","outcomes":{"a":{"state":"succeeded","iterations":2}},"merged":["a"]}`))
	f.Add([]byte(`{"outcomes":null,"merged":[1,2]}`))
	f.Add([]byte("{\"version\":"))
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := StatePath(dir, "g")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		st, found, err := LoadState(dir, "g", "tasks.yaml", now)
		var ce *CorruptStateError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("load: %v", err)
		}
		if st.Outcomes == nil {
			t.Fatal("load left no outcome map")
		}
		if json.Valid(data) && json.Unmarshal(data, new(State)) == nil {
			if !found || ce != nil {
				t.Fatalf("a readable state file is not found (err %v)", err)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, data) {
				t.Fatal("a readable state file was changed by load")
			}
		} else {
			aside, _ := filepath.Glob(path + ".corrupt-*")
			if len(aside) != 1 || ce == nil || ce.MovedTo != aside[0] {
				t.Fatalf("an unreadable state file was not moved aside: %v (err %v)", aside, err)
			}
			if b, _ := os.ReadFile(aside[0]); !bytes.Equal(b, data) {
				t.Fatal("the moved-aside state file lost bytes")
			}
		}
		if err := SaveState(dir, "g", st); err != nil {
			t.Fatal(err)
		}
		var back State
		b, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(b, &back) != nil {
			t.Fatalf("the saved state does not read back: %v", err)
		}
	})
}
