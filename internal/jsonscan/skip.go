package jsonscan

import "bytes"

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
