package jsonscan

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
