package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// EventLog appends one JSON event per line to a run's events.jsonl.
type EventLog struct {
	mu       sync.Mutex
	f        *os.File
	finished int // "iteration finished" events in the log when it was opened
}

// Finished is the number of "iteration finished" events the log held when it
// was opened: a session compares it with the iterations its state records.
func (l *EventLog) Finished() int { return l.finished }

// OpenEvents opens (creating 0600, with its directory 0700) the event log at path
// for appending. A torn last line left by a crash is ended first, so the next
// event starts on a line of its own.
func OpenEvents(path string) (*EventLog, error) {
	if err := EnsureDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("open events: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, FilePerm)
	if err != nil {
		return nil, fmt.Errorf("open events: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			_, err = f.Write([]byte{'\n'})
			if err != nil {
				_ = f.Close()
				return nil, fmt.Errorf("open events: %w", err)
			}
		}
	}
	return &EventLog{f: f, finished: countFinished(f)}, nil
}

// countFinished counts the "iteration finished" lines of an event log.
func countFinished(f *os.File) int {
	n := 0
	sc := bufio.NewScanner(io.NewSectionReader(f, 0, 1<<62))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"type":"iteration_finished"`)) {
			n++
		}
	}
	return n
}

// Append writes ev as one JSON line (the encoding of docs/events.md), in a single
// write so that concurrent appenders never interleave.
func (l *EventLog) Append(ev Event) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("append event: %w", os.ErrClosed)
	}
	if _, err := l.f.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	return nil
}

// Close syncs and closes the log. Closing twice is a no-op.
func (l *EventLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	serr := l.f.Sync()
	cerr := l.f.Close()
	l.f = nil
	if serr != nil {
		return fmt.Errorf("close events: %w", serr)
	}
	if cerr != nil {
		return fmt.Errorf("close events: %w", cerr)
	}
	return nil
}
