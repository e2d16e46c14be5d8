package gate

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// goEvent is one line of go test -json (test2json) or go build -json.
type goEvent struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
	Elapsed     float64
}

// eventDecoder decodes go test -json lines. It scans flat objects itself, which is
// several times faster than encoding/json on the millions of small events of a big
// run, reuses the package and test strings of the previous event, and falls back
// to encoding/json for anything it does not expect.
type eventDecoder struct{ pkg, test string }

func (d *eventDecoder) decode(line []byte, ev *goEvent) bool {
	*ev = goEvent{}
	if ok := d.scanFlat(line, ev); ok {
		return true
	}
	*ev = goEvent{}
	return json.Unmarshal(line, ev) == nil
}

// intern returns *last when it equals b, else a new string stored in *last.
func intern(last *string, b []byte) string {
	if string(b) != *last {
		*last = string(b)
	}
	return *last
}

func actionName(b []byte) string {
	switch string(b) {
	case "output":
		return "output"
	case "run":
		return "run"
	case "pass":
		return "pass"
	case "fail":
		return "fail"
	case "skip":
		return "skip"
	case "start":
		return "start"
	case "pause":
		return "pause"
	case "cont":
		return "cont"
	case "build-output":
		return "build-output"
	case "build-fail":
		return "build-fail"
	}
	return string(b)
}

func (d *eventDecoder) scanFlat(b []byte, ev *goEvent) bool {
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
		key, j, ok := scanString(b, i)
		if !ok {
			return false
		}
		i = skipWS(b, j)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return false
		}
		if b[i] == '"' {
			val, j, ok := scanString(b, i)
			if !ok {
				return false
			}
			i = j
			switch string(key) {
			case "Action":
				ev.Action = actionName(val)
			case "Package":
				ev.Package = intern(&d.pkg, val)
			case "ImportPath":
				ev.ImportPath = string(val)
			case "Test":
				ev.Test = intern(&d.test, val)
			case "Output":
				ev.Output = string(val)
			case "FailedBuild":
				ev.FailedBuild = string(val)
			}
		} else {
			j := i
			for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ' ' {
				if b[j] == '{' || b[j] == '[' || b[j] == '"' {
					return false
				}
				j++
			}
			if string(key) == "Elapsed" {
				f, err := strconv.ParseFloat(string(b[i:j]), 64)
				if err != nil {
					return false
				}
				ev.Elapsed = f
			}
			i = j
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return skipWS(b, i+1) == len(b)
		default:
			return false
		}
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scanString reads the JSON string starting at b[i] == '"'; it returns the
// unescaped value (a sub-slice of b when there is nothing to unescape) and the
// index after the closing quote.
func scanString(b []byte, i int) ([]byte, int, bool) {
	start := i + 1
	j := bytes.IndexByte(b[start:], '"')
	if j < 0 {
		return nil, 0, false
	}
	if bytes.IndexByte(b[start:start+j], '\\') < 0 {
		return b[start : start+j], start + j + 1, true
	}
	out := make([]byte, 0, j+8)
	k := start
	for k < len(b) {
		c := b[k]
		switch {
		case c == '"':
			return out, k + 1, true
		case c != '\\':
			out = append(out, c)
			k++
			continue
		}
		if k+1 >= len(b) {
			return nil, 0, false
		}
		switch b[k+1] {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case '"', '\\', '/':
			out = append(out, b[k+1])
		case 'u':
			r, n, ok := unicodeEscape(b[k:])
			if !ok {
				return nil, 0, false
			}
			out = utf8.AppendRune(out, r)
			k += n
			continue
		default:
			return nil, 0, false
		}
		k += 2
	}
	return nil, 0, false
}

// unicodeEscape decodes \uXXXX, with a following low surrogate when there is one.
func unicodeEscape(b []byte) (rune, int, bool) {
	if len(b) < 6 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(string(b[2:6]), 16, 32)
	if err != nil {
		return 0, 0, false
	}
	r := rune(v)
	if utf16.IsSurrogate(r) && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if v2, err := strconv.ParseUint(string(b[8:12]), 16, 32); err == nil {
			if d := utf16.DecodeRune(r, rune(v2)); d != utf8.RuneError {
				return d, 12, true
			}
		}
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError
	}
	return r, 6, true
}
