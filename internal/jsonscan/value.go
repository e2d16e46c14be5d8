package jsonscan

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

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
