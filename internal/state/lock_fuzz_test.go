package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzReadLockInfo: a lock file of any content is read without a panic, and
// what is read survives being written back.
func FuzzReadLockInfo(f *testing.F) {
	f.Add([]byte(`{"pid":123,"host":"h","start_time":"42","started_at":"2026-01-02T03:04:05Z","children":[{"pgid":124,"start_time":"43"}]}`))
	f.Add([]byte(`{"pid":-1,"children":[{"pgid":"x"}]}`))
	f.Add([]byte("\x00\xff{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "run.lock")
		if err := os.WriteFile(path, data, FilePerm); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		info, err := readInfo(fh)
		if err != nil {
			return
		}
		b, err := json.Marshal(info)
		if err != nil {
			t.Fatalf("marshal %+v: %v", info, err)
		}
		var again LockInfo
		if err := json.Unmarshal(b, &again); err != nil || !reflect.DeepEqual(normal(again), normal(info)) {
			t.Fatalf("lock info does not survive a write: %+v → %s → %+v (%v)", info, b, again, err)
		}
	})
}

// normal drops what JSON cannot tell apart (a nil and an empty list, the
// monotonic clock and zone of a time).
func normal(i LockInfo) LockInfo {
	if len(i.Children) == 0 {
		i.Children = nil
	}
	i.StartedAt = i.StartedAt.UTC().Round(0)
	return i
}
