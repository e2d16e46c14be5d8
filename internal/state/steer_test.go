package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestQueue(t *testing.T) {
	t.Parallel()
	s := Store{Root: t.TempDir()}
	at := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	a, err := s.QueueGuidance("build", "r1", Steer{Text: "first", At: at, By: "ann@box"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.QueueGuidance("build", "r1", Steer{Text: "second", At: at.Add(time.Second)})
	if _, err := s.QueueGuidance("build", "r0", Steer{Text: "for the run before", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.QueueStop("build", "r1", 42, StopRequest{At: at, By: "bob@box"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.QueueDir("build"), "guide-0-bad.json"), []byte("{"), FilePerm); err != nil {
		t.Fatal(err)
	}
	// Another process is running the run: the stop is not for it, and goes.
	q, err := s.Queued("build", "r1", 7)
	if err == nil || !strings.Contains(err.Error(), "guide-0-bad.json is unreadable") {
		t.Errorf("Queued() error %v, want the bad entry named", err)
	}
	if len(q.Guidance) != 2 || q.Guidance[0].ID != a.ID || q.Guidance[0].Text != "first" || q.Guidance[0].By != "ann@box" || q.Guidance[1].ID != b.ID || q.Stop != nil {
		t.Fatalf("Queued() = %+v", q)
	}
	if _, err := os.Stat(filepath.Join(s.QueueDir("build"), "stop.json")); err == nil {
		t.Error("a stop for another process was kept")
	}
	if err := s.QueueStop("build", "r1", 42, StopRequest{At: at, By: "bob@box"}); err != nil {
		t.Fatal(err)
	}
	q, err = s.Queued("build", "r1", 42)
	if err != nil || q.Stop == nil || q.Stop.By != "bob@box" || len(q.Guidance) != 2 {
		t.Fatalf("Queued() = %+v, %v", q, err)
	}
	if err := s.Dequeue("build", []string{a.ID}, true); err != nil {
		t.Fatal(err)
	}
	q, _ = s.Queued("build", "r1", 42)
	if len(q.Guidance) != 1 || q.Guidance[0].Text != "second" || q.Stop != nil {
		t.Errorf("after Dequeue: %+v", q)
	}
	left, _ := filepath.Glob(filepath.Join(s.QueueDir("build"), "*"))
	if len(left) != 2 { // second, and the bad entry moved aside
		t.Errorf("queue holds %v", left)
	}
	if _, err := s.QueueGuidance("../x", "r1", Steer{Text: "x"}); err == nil {
		t.Error("a bad name was queued")
	}
}
