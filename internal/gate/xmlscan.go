package gate

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// xmlToken is one tag or text run of the tolerant XML scanner.
type xmlToken struct {
	kind  byte // 's' start, 'e' end, 't' text
	self  bool // a start tag that closes itself (<x/>)
	name  string
	attrs []byte // the raw attribute part of a start tag
	text  []byte // text or CDATA, unescaped lazily by the caller
	cdata bool
}

// xmlScanner reads just enough XML for JUnit reports, tolerantly: any number of
// concatenated documents, prologs, comments, CDATA, unknown elements. It is
// several times faster than encoding/xml and keeps memory bounded: a tag longer
// than MaxLine is cut, text is handed over in pieces.
type xmlScanner struct {
	br  *bufio.Reader
	buf []byte
	err error
}

func (s *xmlScanner) next(tok *xmlToken) bool {
	*tok = xmlToken{}
	if s.err != nil {
		return false
	}
	c, err := s.br.ReadByte()
	if err != nil {
		s.err = err
		return false
	}
	if c != '<' {
		_ = s.br.UnreadByte()
		return s.readText(tok)
	}
	b, err := s.br.Peek(1)
	if err != nil {
		s.err = err
		return false
	}
	switch b[0] {
	case '!':
		if p, _ := s.br.Peek(8); bytes.Equal(p, []byte("![CDATA[")) {
			_, _ = s.br.Discard(8)
			tok.kind, tok.cdata = 't', true
			tok.text = s.until("]]>")
			return true
		}
		if p, _ := s.br.Peek(3); bytes.Equal(p, []byte("!--")) {
			s.until("-->")
		} else {
			s.tag()
		}
		return s.next(tok)
	case '?':
		s.tag()
		return s.next(tok)
	case '/':
		raw := s.tag()
		tok.kind, tok.name = 'e', localName(bytes.TrimSpace(raw[1:]))
		return true
	}
	raw := s.tag()
	tok.kind = 's'
	if bytes.HasSuffix(raw, []byte("/")) {
		tok.self, raw = true, raw[:len(raw)-1]
	}
	i := bytes.IndexAny(raw, " \t\r\n")
	if i < 0 {
		i = len(raw)
	}
	tok.name, tok.attrs = localName(raw[:i]), raw[i:]
	return true
}

func localName(b []byte) string {
	if i := bytes.LastIndexByte(b, ':'); i >= 0 {
		b = b[i+1:]
	}
	switch string(b) { // the common names without allocating
	case "testcase":
		return "testcase"
	case "failure":
		return "failure"
	case "system-out":
		return "system-out"
	case "testsuite":
		return "testsuite"
	}
	return string(b)
}

// readText reads character data up to the next '<', at most 64 KiB at a time.
func (s *xmlScanner) readText(tok *xmlToken) bool {
	chunk, err := s.br.ReadSlice('<')
	switch {
	case err == nil:
		chunk = chunk[:len(chunk)-1]
		_ = s.br.UnreadByte()
	case errors.Is(err, bufio.ErrBufferFull):
	default:
		s.err = err
	}
	tok.kind, tok.text = 't', chunk
	return len(chunk) > 0 || s.err == nil
}

// tag reads the rest of a tag up to its '>' (quotes respected) and returns its
// content without the brackets, cut at MaxLine.
func (s *xmlScanner) tag() []byte {
	s.buf = s.buf[:0]
	var quote byte
	for {
		chunk, err := s.br.ReadSlice('>')
		for _, c := range chunk {
			switch {
			case quote != 0 && c == quote:
				quote = 0
			case quote == 0 && (c == '"' || c == '\''):
				quote = c
			}
		}
		if len(s.buf) < MaxLine {
			s.buf = append(s.buf, chunk[:min(len(chunk), MaxLine-len(s.buf))]...)
		}
		switch {
		case err == nil && quote == 0:
			return bytes.TrimSuffix(s.buf, []byte(">"))
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			s.err = err
			return s.buf
		}
	}
}

// until reads up to and including end and returns what came before it, cut at MaxLine.
func (s *xmlScanner) until(end string) []byte {
	s.buf = s.buf[:0]
	last := end[len(end)-1]
	var tail []byte
	for {
		chunk, err := s.br.ReadSlice(last)
		if len(s.buf) < MaxLine {
			s.buf = append(s.buf, chunk[:min(len(chunk), MaxLine-len(s.buf))]...)
		}
		tail = append(tail, chunk[max(0, len(chunk)-len(end)):]...)
		tail = tail[max(0, len(tail)-len(end)):]
		switch {
		case err == nil && string(tail) == end:
			return bytes.TrimSuffix(s.buf, []byte(end))
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			s.err = err
			return s.buf
		}
	}
}

func (s *xmlScanner) readErr() error {
	if s.err == nil || errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}

// xmlAttr returns the unescaped value of attribute name in raw attributes.
func xmlAttr(attrs []byte, name string) string {
	for i := 0; i < len(attrs); {
		for i < len(attrs) && (attrs[i] == ' ' || attrs[i] == '\t' || attrs[i] == '\n' || attrs[i] == '\r') {
			i++
		}
		eq := bytes.IndexByte(attrs[i:], '=')
		if eq < 0 {
			return ""
		}
		key := bytes.TrimSpace(attrs[i : i+eq])
		j := i + eq + 1
		for j < len(attrs) && attrs[j] == ' ' {
			j++
		}
		if j >= len(attrs) || (attrs[j] != '"' && attrs[j] != '\'') {
			return ""
		}
		q := attrs[j]
		end := bytes.IndexByte(attrs[j+1:], q)
		if end < 0 {
			return ""
		}
		val := attrs[j+1 : j+1+end]
		if k := bytes.LastIndexByte(key, ':'); k >= 0 {
			key = key[k+1:]
		}
		if string(key) == name {
			return xmlUnescape(val)
		}
		i = j + 1 + end + 1
	}
	return ""
}

// xmlUnescape decodes the predefined entities and character references.
func xmlUnescape(b []byte) string {
	if bytes.IndexByte(b, '&') < 0 {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		i := bytes.IndexByte(b, '&')
		if i < 0 {
			sb.Write(b)
			break
		}
		sb.Write(b[:i])
		b = b[i:]
		semi := bytes.IndexByte(b, ';')
		if semi < 0 || semi > 10 {
			sb.WriteByte('&')
			b = b[1:]
			continue
		}
		ent := string(b[1:semi])
		switch ent {
		case "lt":
			sb.WriteByte('<')
		case "gt":
			sb.WriteByte('>')
		case "amp":
			sb.WriteByte('&')
		case "quot":
			sb.WriteByte('"')
		case "apos":
			sb.WriteByte('\'')
		default:
			var n uint64
			var err error
			switch {
			case strings.HasPrefix(ent, "#x"):
				n, err = strconv.ParseUint(ent[2:], 16, 32)
			case strings.HasPrefix(ent, "#"):
				n, err = strconv.ParseUint(ent[1:], 10, 32)
			default:
				err = errors.New("unknown entity")
			}
			if err != nil || !utf8.ValidRune(rune(n)) {
				sb.Write(b[:semi+1])
			} else {
				sb.WriteRune(rune(n))
			}
		}
		b = b[semi+1:]
	}
	return sb.String()
}
