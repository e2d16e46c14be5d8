package state

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEscalations(t *testing.T) {
	t.Parallel()
	touch := func(t *testing.T, dir string, names ...string) {
		t.Helper()
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), nil, FilePerm); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name  string
		files []string
		want  []EscalationFile
	}{
		{"none", []string{"history.jsonl", "escalation-001.yaml"}, nil},
		// Numbered by segment, in the order of the segments: a thousandth
		// segment comes after the 999th.
		{"per segment", []string{"escalation-002.md", "escalation-1000.md", "escalation-001.md", "escalation-999.md", "escalation-002.yaml", "escalation-x.md"},
			[]EscalationFile{{1, 1, "escalation-001.md"}, {2, 1, "escalation-002.md"}, {999, 1, "escalation-999.md"}, {1000, 1, "escalation-1000.md"}}},
		// A segment that escalated again: its reports in their order, after
		// its first and before the next segment's.
		{"twice in a segment", []string{"escalation-003.md", "escalation-002-10.md", "escalation-002.md", "escalation-002-2.md", "escalation-002-2.yaml", "escalation-002-x.md"},
			[]EscalationFile{{2, 1, "escalation-002.md"}, {2, 2, "escalation-002-2.md"}, {2, 10, "escalation-002-10.md"}, {3, 1, "escalation-003.md"}}},
		{"an older build's single report", []string{"escalation.md"}, []EscalationFile{{0, 0, "escalation.md"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			touch(t, dir, tt.files...)
			got := Escalations(dir)
			for i := range got {
				got[i].Path = filepath.Base(got[i].Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Escalations (-want +got):\n%s", diff)
			}
			last := ""
			if n := len(tt.want); n > 0 {
				last = filepath.Join(dir, tt.want[n-1].Path)
			}
			if got := LatestEscalation(dir); got != last {
				t.Errorf("LatestEscalation = %q, want %q", got, last)
			}
		})
	}
}

func TestRunIDs(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	if ids, err := s.RunIDs("build"); err != nil || ids != nil {
		t.Errorf("no runs: %v, %v", ids, err)
	}
	for _, id := range []string{"20260314-100000-b", "20260101-090000-a", ".hidden-not-valid"} {
		if err := os.MkdirAll(s.RunDir("build", id), DirPerm); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.Root, "runs", "build", "notes.txt"), nil, FilePerm); err != nil {
		t.Fatal(err)
	}
	ids, err := s.RunIDs("build")
	if diff := cmp.Diff([]string{"20260101-090000-a", "20260314-100000-b"}, ids); diff != "" || err != nil {
		t.Errorf("RunIDs err=%v (-want +got):\n%s", err, diff)
	}
	if _, err := s.RunIDs("../x"); err == nil {
		t.Error("RunIDs of an invalid name: no error")
	}
}
