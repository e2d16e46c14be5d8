package state

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeptStates loads every state file kept from a real run of an earlier
// build (testdata/vN-*.json), and saves it back as the current schema.
func TestKeptStates(t *testing.T) {
	t.Parallel()
	kept, err := filepath.Glob(filepath.Join("testdata", "v*.json"))
	if err != nil || len(kept) == 0 {
		t.Fatalf("no kept state files in testdata (%v)", err)
	}
	for _, file := range kept {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			v, ok := schemaVersion(data)
			if !ok || !strings.HasPrefix(filepath.Base(file), "v"+strconv.Itoa(v)+"-") {
				t.Fatalf("%s holds schema %d (%v); name it vN-… after the version inside", file, v, ok)
			}
			s := Store{Root: t.TempDir()}
			if err := EnsureDir(s.StateDir()); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(s.StatePath("build"), data, 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := s.Load("build")
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if st.Version != StateVersion || st.Name != "build" || st.Status != StatusEscalated ||
				st.RunID == "" || len(st.History) == 0 || len(st.Baseline) == 0 || len(st.Args) == 0 {
				t.Errorf("loaded state lost data: version %d name %q status %q run %q, %d records, %d baseline gates, args %q",
					st.Version, st.Name, st.Status, st.RunID, len(st.History), len(st.Baseline), st.Args)
			}
			if err := s.Save(st); err != nil {
				t.Fatal(err)
			}
			saved, err := os.ReadFile(s.StatePath("build"))
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := schemaVersion(saved); v != StateVersion {
				t.Errorf("saved as schema %d, want %d", v, StateVersion)
			}
			again, err := s.Load("build")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(st, again); diff != "" {
				t.Errorf("save and load changed the state (-first +again):\n%s", diff)
			}
		})
	}
}

// TestUpgrade runs the upgrade machinery over a made-up table of three schema
// versions, since the real table starts empty.
func TestUpgrade(t *testing.T) {
	t.Parallel()
	renameIters := migration{from: 1, up: func(doc map[string]any) error {
		doc["iterations"] = doc["iters"]
		delete(doc, "iters")
		return nil
	}}
	addLimits := migration{from: 2, up: func(doc map[string]any) error {
		if _, ok := doc["iterations"].(json.Number); !ok {
			return errors.New("iterations is not a number")
		}
		doc["limits"] = map[string]any{"max_iterations": doc["iterations"]}
		return nil
	}}
	table := []migration{renameIters, addLimits}
	tests := []struct {
		name     string
		in       string
		from, to int
		table    []migration
		want     string // JSON, compared as values
		wantErr  string
	}{
		{"current", `{"version":3,"x":1}`, 3, 3, table, `{"version":3,"x":1}`, ""},
		{"one step", `{"version":2,"iterations":7}`, 2, 3, table, `{"version":3,"iterations":7,"limits":{"max_iterations":7}}`, ""},
		{"two steps", `{"version":1,"iters":9007199254740993,"keep":"me"}`, 1, 3, table,
			`{"version":3,"iterations":9007199254740993,"limits":{"max_iterations":9007199254740993},"keep":"me"}`, ""},
		{"a step fails", `{"version":1,"iters":"many"}`, 1, 3, table, "", "upgrade state from schema 2 to 3: iterations is not a number"},
		{"a step is missing", `{"version":1,"iters":1}`, 1, 3, []migration{renameIters}, "", "no upgrade from schema 2"},
		{"steps out of order", `{"version":1}`, 1, 3, []migration{addLimits, renameIters}, "", "no upgrade from schema 1"},
		{"not an object", `[1]`, 1, 2, table, "", "upgrade state from schema 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := upgrade([]byte(tt.in), tt.from, tt.to, tt.table)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("upgrade error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("upgrade wrote %q: %v", got, err)
			}
			_ = json.Unmarshal([]byte(tt.want), &w)
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("upgrade (-want +got):\n%s\n%s", diff, got)
			}
			if tt.name == "two steps" && !strings.Contains(string(got), "9007199254740993") {
				t.Errorf("a large integer lost precision: %s", got)
			}
		})
	}
}

// TestMigrationsTable checks the real table: one step per older version, in
// order, ending at the version this build writes.
func TestMigrationsTable(t *testing.T) {
	t.Parallel()
	ms := migrations()
	if len(ms) != StateVersion-1 {
		t.Fatalf("%d migrations for schema %d: want one from each older version", len(ms), StateVersion)
	}
	for i, m := range ms {
		if m.from != i+1 || m.up == nil {
			t.Errorf("migration %d upgrades from %d (up set: %v), want from %d", i, m.from, m.up != nil, i+1)
		}
	}
}

// TestLoadNewer refuses a state file of a newer schema and leaves it in place.
func TestLoadNewer(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	if err := EnsureDir(s.StateDir()); err != nil {
		t.Fatal(err)
	}
	v := StateVersion + 1
	content := `{"version": ` + strconv.Itoa(v) + `, "name": "demo", "status": "a status from the future", "new": [1, 2]}`
	path := s.StatePath("demo")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, load := range []func() error{
		func() error { _, err := s.Load("demo"); return err },
		func() error { _, err := s.List(); return err },
	} {
		err := load()
		ne, ok := errors.AsType[*NewerError](err)
		if !ok {
			t.Fatalf("error = %v, want a *NewerError", err)
		}
		if _, corrupt := errors.AsType[*CorruptError](err); corrupt {
			t.Errorf("a newer state is reported as corrupt: %v", err)
		}
		want := "state file " + path + " was written by a newer agentloop (schema " + strconv.Itoa(v) + ", this one reads up to " + strconv.Itoa(StateVersion) + "): upgrade agentloop"
		if ne.Error() != want {
			t.Errorf("error %q\nwant  %q", ne, want)
		}
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != content {
		t.Errorf("state file now %q (%v), want it untouched", got, err)
	}
	if entries, _ := os.ReadDir(s.StateDir()); len(entries) != 1 {
		t.Errorf("state folder holds %d entries, want the file alone (nothing moved aside)", len(entries))
	}
}
