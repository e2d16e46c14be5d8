package agent

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// A small, allocation-free scanner over JSON objects. It finds the top-level
// members of an object without decoding the values, so a parser can decode only
// the few small values it needs (usage, ids) and skip megabytes of tool output at
// memchr speed. It checks structure only as far as it needs to find the ends of
// values; the values that matter are decoded with encoding/json, which validates.

// objectFields calls fn with the raw key (quotes removed, escapes kept) and raw
// value of each top-level member of the object b, in order, until fn returns
// false. It reports whether the whole object was well formed as far as it read;
// members before an error (such as a cut line) have already been passed to fn.
func objectFields(b []byte, fn func(key, val []byte) bool) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		end, ok := skipString(b, i)
		if !ok {
			return false
		}
		key := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		vend, ok := skipValue(b, i)
		if !ok {
			return false
		}
		if !fn(key, b[i:vend]) {
			return true
		}
		i = skipWS(b, vend)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

// arrayElements calls fn with each raw element of the JSON array b.
func arrayElements(b []byte, fn func(val []byte)) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for i < len(b) {
		end, ok := skipValue(b, i)
		if !ok {
			return false
		}
		fn(b[i:end])
		i = skipWS(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return true
		default:
			return false
		}
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), false
		}
		j += k
		n := 0 // backslashes right before the quote
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		j++
	}
}

var structural = []byte(`"{}[]`)

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			k := bytes.IndexAny(b[i:], string(structural))
			if k < 0 {
				return len(b), false
			}
			i += k
			switch b[i] {
			case '"':
				end, ok := skipString(b, i)
				if !ok {
					return end, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			default:
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return len(b), false
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return j, j > i
			}
			j++
		}
		return j, j > i
	}
}

// strValue decodes a raw JSON string value; anything else gives "".
func strValue(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// numValue decodes a raw JSON number; ok is false for null, strings and junk.
func numValue(v []byte) (float64, bool) {
	if len(v) == 0 || v[0] == 'n' || v[0] == '"' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

func boolValue(v []byte) bool { return string(v) == "true" }

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
