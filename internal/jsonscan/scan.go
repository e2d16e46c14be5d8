package jsonscan

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Fields calls fn with the raw key (quotes removed, escapes kept) and the raw
// value of each member of the object that b holds (blank space around it
// allowed), in order, until fn returns false. It reports whether the object was
// well formed as far as it was read, with nothing but blank space after it when
// it was read to its end; members before an error (such as a cut line) have
// already been passed to fn.
func Fields(b []byte, fn func(key, val []byte) bool) bool {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipWS(b, i+1) == len(b)
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		end, ok := SkipString(b, i)
		if !ok {
			return false
		}
		key := b[i+1 : end-1]
		i = SkipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = SkipWS(b, i+1)
		vend, ok := SkipValue(b, i)
		if !ok {
			return false
		}
		if !fn(key, b[i:vend]) {
			return true
		}
		i = SkipWS(b, vend)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
		case '}':
			return SkipWS(b, i+1) == len(b)
		default:
			return false
		}
	}
	return false
}

// Elements calls fn with each raw element of the array that b holds, and
// reports whether the array was well formed, with nothing but blank space
// after it.
func Elements(b []byte, fn func(val []byte)) bool {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return SkipWS(b, i+1) == len(b)
	}
	for i < len(b) {
		end, ok := SkipValue(b, i)
		if !ok {
			return false
		}
		fn(b[i:end])
		i = SkipWS(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
		case ']':
			return SkipWS(b, i+1) == len(b)
		default:
			return false
		}
	}
	return false
}

// SkipWS returns the index of the first byte at or after i that is not JSON
// blank space.
func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipString returns the index just past the string starting at b[i]; ok is
// false when there is no string there or it does not end.
func SkipString(b []byte, i int) (int, bool) {
	if i < 0 || i >= len(b) || b[i] != '"' {
		return i, false
	}
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

// structural marks the bytes that matter inside an object or array being
// skipped: a table, not bytes.IndexAny, which builds its set on every call and
// cost more than the scan itself on small values.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// SkipValue returns the index just past the value starting at b[i]: a string,
// an object or array (its nesting matched, its content not checked), or a
// literal or number (up to the next delimiter).
func SkipValue(b []byte, i int) (int, bool) {
	if i < 0 || i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			for i < len(b) && !structural[b[i]] {
				i++
			}
			if i == len(b) {
				return len(b), false
			}
			switch b[i] {
			case '"':
				end, ok := SkipString(b, i)
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

// Str decodes a raw string value; anything else, or a malformed string, gives "".
func Str(v []byte) string {
	s, ok := Unquote(v)
	if !ok {
		return ""
	}
	return string(s)
}

// Unquote decodes a raw string value (quotes included): a sub-slice of v when
// there is nothing to unescape, else a new slice. ok is false for anything
// but a well-formed string.
func Unquote(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	s, end, ok := String(v, 0)
	return s, ok && end == len(v)
}

// String reads the string starting at b[i]: it returns the unescaped
// value (a sub-slice of b when there is nothing to unescape) and the index
// after the closing quote. A lone surrogate escape becomes U+FFFD, as
// encoding/json does.
func String(b []byte, i int) ([]byte, int, bool) {
	if i < 0 || i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
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

// Num decodes a raw number; ok is false for null, strings and junk.
func Num(v []byte) (float64, bool) {
	if len(v) == 0 || v[0] == 'n' || v[0] == '"' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// Bool reports whether a raw value is the literal true.
func Bool(v []byte) bool { return string(v) == "true" }

// Members reads the members of one object in a single pass, unescaping keys
// and string values as it finds them: the way for a parser that keeps most
// strings it reads (the events of go test -json), where [Fields] would scan
// each string twice.
type Members struct {
	b   []byte
	i   int
	bad bool
	end bool
}

// NewMembers starts reading the object that b holds.
func NewMembers(b []byte) Members {
	m := Members{b: b}
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		m.bad, m.end = true, true
		return m
	}
	m.i = SkipWS(b, i+1)
	if m.i < len(b) && b[m.i] == '}' {
		m.end = true
		m.bad = SkipWS(b, m.i+1) != len(b)
	}
	return m
}

// Next returns the next member: its unescaped key, and its value, unescaped
// when str (a string), raw otherwise. ok is false at the end of the object or
// at the first malformed byte; [Members.Valid] tells which.
func (m *Members) Next() (key, val []byte, str, ok bool) {
	if m.end {
		return nil, nil, false, false
	}
	b, i := m.b, m.i
	key, i, ok = String(b, i)
	if !ok {
		return m.fail()
	}
	i = SkipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return m.fail()
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '"' {
		val, i, ok = String(b, i)
		str = true
	} else {
		var end int
		end, ok = SkipValue(b, i)
		val, i = b[i:min(end, len(b))], end
	}
	if !ok {
		return m.fail()
	}
	i = SkipWS(b, i)
	switch {
	case i >= len(b):
		return m.fail()
	case b[i] == ',':
		m.i = SkipWS(b, i+1)
	case b[i] == '}':
		m.end = true
		m.bad = SkipWS(b, i+1) != len(b)
	default:
		return m.fail()
	}
	return key, val, str, true
}

func (m *Members) fail() ([]byte, []byte, bool, bool) {
	m.bad, m.end = true, true
	return nil, nil, false, false
}

// Valid reports whether the object was well formed, with nothing but blank
// space after it, as far as it was read.
func (m *Members) Valid() bool { return !m.bad }
