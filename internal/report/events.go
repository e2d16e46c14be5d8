package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/state"
)

// Bounds on what a report reads from a run folder.
const (
	maxEventLine   = 1 << 20 // a longer line is skipped
	maxEvents      = 100_000 // the most recent ones are kept
	maxEscalation  = 1 << 20
	eventsFileName = "events.jsonl"
)

// ReadEvents reads events.jsonl into the loop's typed events, of any schema
// version (see [state.EventSchema]). It is tolerant, because a run in progress may
// be writing it: a line that does not parse (the half-written last one, a corrupt
// one) or is longer than 1 MiB is skipped and counted in skipped.
func ReadEvents(r io.Reader) (events []state.Event, skipped int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if len(line) > 0 || tooLong {
			var ev state.Event
			if tooLong || json.Unmarshal(line, &ev) != nil {
				skipped++
			} else {
				events = append(events, ev)
				if len(events) > 2*maxEvents {
					events = append(events[:0:0], events[len(events)-maxEvents:]...)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return events, skipped, fmt.Errorf("read events: %w", err)
		}
	}
	if len(events) > maxEvents {
		events = events[len(events)-maxEvents:]
	}
	return events, skipped, nil
}

// readLine reads one line, dropping the content of a line over maxEventLine.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf bytes.Buffer
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(chunk) > 0 && !tooLong {
			if buf.Len()+len(chunk) > maxEventLine {
				tooLong = true
				buf.Reset()
			} else {
				buf.Write(chunk)
			}
		}
		if err != nil || !isPrefix {
			return bytes.TrimSpace(buf.Bytes()), tooLong, err
		}
	}
}

// ReadLastEvents is [ReadEvents] decoding only the last n lines: total counts
// every line of the log (the ones skipped included), for a report that shows
// the last events of a long run and how many there are.
func ReadLastEvents(r io.Reader, n int) (events []state.Event, total int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	last := make([][]byte, 0, n) // a ring of the last n lines once full
	next := 0
	for {
		line, tooLong, err := readLine(br)
		if len(line) > 0 || tooLong {
			total++
			if tooLong {
				line = nil // skipped when decoded
			}
			if len(last) < n {
				last = append(last, bytes.Clone(line))
			} else if n > 0 {
				last[next] = append(last[next][:0], line...)
				next = (next + 1) % n
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, total, fmt.Errorf("read events: %w", err)
		}
	}
	for i := range last {
		var ev state.Event
		if line := last[(next+i)%len(last)]; len(line) > 0 && json.Unmarshal(line, &ev) == nil {
			events = append(events, ev)
		}
	}
	return events, total, nil
}

// LoadRunDir gathers what a report shows from a run folder
// (.agentloop/runs/NAME/RUNID): the events, the list of escalation reports and
// the last one, what the attempts a pull request's body tells of keep
// ([Run.Attempts]), with the run's state st (and its history) loaded by the
// caller. Missing files are not errors: a run that just started has none.
func LoadRunDir(dir string, st *state.State) (Run, error) { return LoadRunDirLast(dir, st, 0) }

// LoadRunDirLast is [LoadRunDir] reading only the last lastEvents events (all
// of them for 0), with [Run.EventsAll] counting every one: what the HTML
// report shows of a long run's log.
func LoadRunDirLast(dir string, st *state.State, lastEvents int) (Run, error) {
	r := Run{State: st, Attempts: loadAttempts(dir, st)}
	f, err := os.Open(filepath.Join(dir, eventsFileName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return r, fmt.Errorf("load the run's events: %w", err)
	default:
		defer f.Close()
		if lastEvents > 0 {
			r.Events, r.EventsAll, err = ReadLastEvents(f, lastEvents)
		} else {
			r.Events, _, err = ReadEvents(f)
		}
		if err != nil {
			return r, fmt.Errorf("load the run's events from %s: %w", dir, err)
		}
	}
	r.Escalations = state.Escalations(dir)
	if len(r.Escalations) == 0 {
		return r, nil
	}
	esc, err := os.Open(r.Escalations[len(r.Escalations)-1].Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return r, fmt.Errorf("load the escalation report: %w", err)
	default:
		defer esc.Close()
		b, err := io.ReadAll(io.LimitReader(esc, maxEscalation))
		if err != nil {
			return r, fmt.Errorf("load the escalation report: %w", err)
		}
		r.Escalation = string(b)
	}
	return r, nil
}
