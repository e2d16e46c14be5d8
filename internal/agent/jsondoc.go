package agent

import (
	"bytes"
	"encoding/json"
)

// docAccum gathers a JSON document that may span several lines (pretty-printed
// output) from a line stream, skipping lines before it that are not JSON.
type docAccum struct {
	buf    []byte
	active bool
	max    int
}

const maxDoc = 32 << 20

// add feeds one line and returns a whole document when one is complete.
func (d *docAccum) add(line []byte) ([]byte, bool) {
	t := bytes.TrimSpace(line)
	if !d.active {
		if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
			return nil, false
		}
		d.active, d.buf = true, append(d.buf[:0], t...)
		if json.Valid(d.buf) {
			d.active = false
			return d.buf, true
		}
		return nil, false
	}
	if len(line) > 0 && line[0] == '{' && json.Valid(line) {
		// A whole object on its own line (NDJSON) ends a document that never closed.
		d.active = false
		d.buf = append(d.buf[:0], line...)
		return d.buf, true
	}
	limit := d.max
	if limit == 0 {
		limit = maxDoc
	}
	if len(d.buf)+len(line)+1 > limit {
		d.active, d.buf = false, nil
		return nil, false
	}
	d.buf = append(d.buf, '\n')
	d.buf = append(d.buf, line...)
	// The outer close of a pretty-printed document is at column 0.
	if len(line) > 0 && (line[0] == '}' || line[0] == ']') && json.Valid(d.buf) {
		d.active = false
		return d.buf, true
	}
	return nil, false
}
