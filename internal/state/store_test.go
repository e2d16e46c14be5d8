package state

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func validState(name string) *State {
	return &State{
		Version:       StateVersion,
		Name:          name,
		RunID:         "20260101-000000",
		Status:        StatusRunning,
		MaxIterations: 5,
		StartedAt:     time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		History:       []Record{{N: 1, Succeeded: false, Failing: []string{"go:pkg.TestX"}}},
	}
}

func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := WriteFileAtomic(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read back %q, %v; want %q", got, err, content)
		}
	}
	if fi, _ := os.Stat(path); !permIs(fi, 0o600) {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the file (no temp files left)", len(entries))
	}
	if err := WriteFileAtomic(filepath.Join(path, "under-a-file"), nil, 0o600); err == nil {
		t.Error("write under a regular file: no error")
	}
}

func TestSaveLoad(t *testing.T) {
	t.Parallel()
	s := Store{Root: filepath.Join(t.TempDir(), ".agentloop")}
	want := validState("demo")
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("demo")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load mismatch (-want +got):\n%s", diff)
	}
	for path, perm := range map[string]os.FileMode{s.StatePath("demo"): 0o600, s.StateDir(): 0o700} {
		if fi, err := os.Stat(path); err != nil || !permIs(fi, perm) {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, perm)
		}
	}
	if _, err := s.Load("other"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load(missing) error = %v, want ErrNotFound", err)
	}
	if _, err := s.Load("../x"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("Load(../x) error = %v, want an invalid-name error", err)
	}
	bad := validState("demo")
	bad.Version = 0
	if err := s.Save(bad); err == nil {
		t.Error("Save(invalid state): no error")
	}
}

func TestLoadCorrupt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		wantErr string
	}{
		{"syntax", "{\n  \"version\": x\n}", "line 2:14"},
		{"truncated", "{\"version\": 1,\n", "line 2:"},
		{"type", "{\n\"version\": \"one\"}", "line 2:"},
		{"trailing", "{}\n}", "line 2:1"},
		{"invalid", `{"version": 0, "name": "demo", "status": "running"}`, "version 0"},
		{"wrong name", `{"version": 1, "name": "other", "status": "running"}`, "does not match"},
		{"empty", "", "parse state"},
		{"bad time", `{"version": 1, "name": "demo", "status": "running", "started_at": "yesterday"}`, "parse state: parsing time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := Store{Root: t.TempDir()}
			if err := EnsureDir(s.StateDir()); err != nil {
				t.Fatal(err)
			}
			path := s.StatePath("demo")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load("demo")
			ce, ok := errors.AsType[*CorruptError](err)
			if !ok {
				t.Fatalf("Load error = %v, want *CorruptError", err)
			}
			if !strings.Contains(ce.Error(), tt.wantErr) {
				t.Errorf("error %q lacks %q", ce, tt.wantErr)
			}
			if ce.Path != path || !strings.HasPrefix(ce.MovedTo, path+".corrupt-") {
				t.Errorf("Path %q MovedTo %q", ce.Path, ce.MovedTo)
			}
			if moved, err := os.ReadFile(ce.MovedTo); err != nil || string(moved) != tt.content {
				t.Errorf("moved file holds %q (%v), want the original", moved, err)
			}
			if _, err := s.Load("demo"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Load after moving aside = %v, want ErrNotFound", err)
			}
		})
	}
}

// corruptName is the suffix of a corrupt state moved aside: the time, and a
// counter from the second one moved in the same second.
var corruptName = regexp.MustCompile(`^\.corrupt-\d{8}T\d{6}Z(-[1-9]\d*)?$`)

func TestLoadCorruptTwiceKeepsBoth(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	if err := EnsureDir(s.StateDir()); err != nil {
		t.Fatal(err)
	}
	moved := map[string]bool{}
	for _, content := range []string{"one", "two"} {
		if err := os.WriteFile(s.StatePath("demo"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := s.Load("demo")
		ce, ok := errors.AsType[*CorruptError](err)
		if !ok {
			t.Fatalf("Load error = %v", err)
		}
		moved[ce.MovedTo] = true
		if !corruptName.MatchString(strings.TrimPrefix(ce.MovedTo, s.StatePath("demo"))) {
			t.Errorf("moved to %s, want demo.json.corrupt-<UTC time>[-n]", ce.MovedTo)
		}
	}
	if len(moved) != 2 {
		t.Errorf("second corrupt file overwrote the first: %v", moved)
	}
}

func TestSaveUnwritable(t *testing.T) {
	t.Parallel()
	// A root under a regular file cannot be created, even by root.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := Store{Root: filepath.Join(file, ".agentloop")}
	if err := s.Save(validState("demo")); err == nil {
		t.Error("Save under a regular file: no error")
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	if states, err := s.List(); err != nil || len(states) != 0 {
		t.Fatalf("List of an empty store = %v, %v", states, err)
	}
	for _, n := range []string{"zeta", "alpha"} {
		if err := s.Save(validState(n)); err != nil {
			t.Fatal(err)
		}
	}
	broken := filepath.Join(s.StateDir(), "broken.json")
	if err := os.WriteFile(broken, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Not states, so not read: another file, a folder, a name no run can have.
	for _, f := range []string{"notes.txt", "-x.json", "demo.json.corrupt-20260101T000000Z"} {
		if err := os.WriteFile(filepath.Join(s.StateDir(), f), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(s.StateDir(), "folder.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	states, err := s.List()
	var names []string
	for _, st := range states {
		names = append(names, st.Name)
	}
	if diff := cmp.Diff([]string{"alpha", "zeta"}, names); diff != "" {
		t.Errorf("List names (-want +got):\n%s", diff)
	}
	if ce, ok := errors.AsType[*CorruptError](err); !ok || ce.Path != broken || ce.MovedTo != "" {
		t.Errorf("List error = %v, want a CorruptError for %s, not moved", err, broken)
	}
	if _, err := os.Stat(broken); err != nil {
		t.Errorf("List moved or removed the broken file: %v", err)
	}
}

func TestDirs(t *testing.T) {
	t.Parallel()
	s := Store{}
	tests := []struct{ got, want string }{
		{s.RunDir("demo", "r1"), filepath.Join(".agentloop", "runs", "demo", "r1")},
		{s.IterDir("demo", "r1", 1), filepath.Join(".agentloop", "runs", "demo", "r1", "iter-001")},
		{s.IterDir("demo", "r1", 999), filepath.Join(".agentloop", "runs", "demo", "r1", "iter-999")},
		{s.IterDir("demo", "r1", 1000), filepath.Join(".agentloop", "runs", "demo", "r1", "iter-1000")},
		{s.StatePath("demo"), filepath.Join(".agentloop", "state", "demo.json")},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !permIs(fi, 0o700) {
		t.Errorf("EnsureDir mode %v, %v; want 0700", fi.Mode().Perm(), err)
	}
}

func TestLoadRefusesARunIDThatIsAPath(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	if err := EnsureDir(s.StateDir()); err != nil {
		t.Fatal(err)
	}
	bad := `{"version":1,"name":"build","run_id":"../../../escape","status":"escalated"}`
	if err := os.WriteFile(s.StatePath("build"), []byte(bad), FilePerm); err != nil {
		t.Fatal(err)
	}
	_, err := s.Load("build")
	if ce, ok := errors.AsType[*CorruptError](err); !ok || !strings.Contains(ce.Error(), "run_id") {
		t.Fatalf("Load = %v, want a corrupt state naming run_id", err)
	}
}

func TestStoreKeepsItselfOutOfGit(t *testing.T) {
	t.Parallel()
	s := Store{Root: filepath.Join(t.TempDir(), ".agentloop")}
	l, err := s.Lock("build")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	b, err := os.ReadFile(filepath.Join(s.Root, ".gitignore"))
	if err != nil || !strings.Contains(string(b), "\n*\n") {
		t.Fatalf(".gitignore = %q, %v; want one that ignores everything", b, err)
	}
}
