package session

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/ui"
)

// FuzzGraphStateLoad: a task graph's state file of any content is either read
// or moved aside with its bytes kept, never overwritten, and the state saved
// afterwards reads back.
func FuzzGraphStateLoad(f *testing.F) {
	f.Add([]byte(`{"version":1,"file":"tasks.yaml","outcomes":{"a":{"state":"succeeded","iterations":2}},"merged":["a"]}`))
	f.Add([]byte(`{"outcomes":null,"merged":[1,2]}`))
	f.Add([]byte("{\"version\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		g := &graphRun{pr: testProcess(dir), name: "g", stateDir: dir, file: &tasks.File{Path: "tasks.yaml"},
			out: ui.New(ui.Options{Out: io.Discard})}
		if err := os.MkdirAll(filepath.Dir(g.path()), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(g.path(), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := g.load(); err != nil {
			t.Fatalf("load: %v", err)
		}
		if g.st.Outcomes == nil {
			t.Fatal("load left no outcome map")
		}
		if json.Valid(data) && json.Unmarshal(data, new(GraphState)) == nil {
			if b, _ := os.ReadFile(g.path()); !bytes.Equal(b, data) {
				t.Fatal("a readable state file was changed by load")
			}
		} else {
			aside, _ := filepath.Glob(g.path() + ".corrupt-*")
			if len(aside) != 1 {
				t.Fatalf("an unreadable state file was not moved aside: %v", aside)
			}
			if b, _ := os.ReadFile(aside[0]); !bytes.Equal(b, data) {
				t.Fatal("the moved-aside state file lost bytes")
			}
		}
		g.save()
		var back GraphState
		b, err := os.ReadFile(g.path())
		if err != nil || json.Unmarshal(b, &back) != nil {
			t.Fatalf("the saved state does not read back: %v", err)
		}
	})
}
