package ghdouble

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// gField is one field of a GraphQL selection.
type gField struct {
	alias, name string
	args        map[string]any // a variable is a gVar
	sels        []*gField
	line, col   int
	// on is an inline fragment's type condition (name is "..."); spread
	// names a fragment spread, which parseGQL replaces by its fragment.
	on, spread string
}

type gVar string

// key is the field's name in the answer.
func (f *gField) key() string {
	if f.alias != "" {
		return f.alias
	}
	return f.name
}

type gTok struct {
	kind      byte // n name, s string, d number, p punctuation, 0 end
	text      string
	line, col int
}

type gParser struct {
	toks []gTok
	i    int
}

// gqlMessage is an error whose text is GitHub's own message, capitals
// and all.
type gqlMessage string

func (m gqlMessage) Error() string { return string(m) }

// gqlError is an error as GitHub's GraphQL API reports one.
type gqlError struct {
	Message    string         `json:"message"`
	Type       string         `json:"type,omitempty"`
	Path       []any          `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
	Locations  []obj          `json:"locations,omitempty"`
}

func lexGQL(src string) ([]gTok, error) {
	var toks []gTok
	line, col := 1, 1
	rs := []rune(src)
	for i := 0; i < len(rs); {
		r := rs[i]
		start := gTok{line: line, col: col}
		adv := func(n int) {
			for k := 0; k < n; k++ {
				if rs[i] == '\n' {
					line, col = line+1, 1
				} else {
					col++
				}
				i++
			}
		}
		switch {
		case r == '#':
			for i < len(rs) && rs[i] != '\n' {
				adv(1)
			}
		case unicode.IsSpace(r) || r == ',' || r == '\ufeff':
			adv(1)
		case r == '_' || unicode.IsLetter(r):
			j := i
			for j < len(rs) && (rs[j] == '_' || unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			start.kind, start.text = 'n', string(rs[i:j])
			adv(j - i)
			toks = append(toks, start)
		case r == '-' || unicode.IsDigit(r):
			j := i + 1
			for j < len(rs) && (unicode.IsDigit(rs[j]) || rs[j] == '.') {
				j++
			}
			start.kind, start.text = 'd', string(rs[i:j])
			adv(j - i)
			toks = append(toks, start)
		case r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(rs) {
				return nil, gqlMessage(fmt.Sprintf("Parse error on unterminated string at [%d, %d]", line, col))
			}
			text, err := strconv.Unquote(string(rs[i : j+1]))
			if err != nil {
				text = string(rs[i+1 : j])
			}
			start.kind, start.text = 's', text
			adv(j + 1 - i)
			toks = append(toks, start)
		case strings.ContainsRune("{}():!$=[]@", r):
			start.kind, start.text = 'p', string(r)
			adv(1)
			toks = append(toks, start)
		case r == '.' && i+2 < len(rs) && rs[i+1] == '.' && rs[i+2] == '.':
			start.kind, start.text = 'p', "..."
			adv(3)
			toks = append(toks, start)
		default:
			return nil, gqlMessage(fmt.Sprintf("Parse error on %q at [%d, %d]", string(r), line, col))
		}
	}
	return append(toks, gTok{line: line, col: col}), nil
}

func (p *gParser) peek() gTok { return p.toks[p.i] }
func (p *gParser) next() gTok { t := p.toks[p.i]; p.i = min(p.i+1, len(p.toks)-1); return t }

func (p *gParser) fail(t gTok) error {
	what := t.text
	if t.kind == 0 {
		what = "end of file"
	}
	return gqlMessage(fmt.Sprintf("Parse error on %q at [%d, %d]", what, t.line, t.col))
}

func (p *gParser) expect(text string) error {
	if t := p.next(); t.text != text || t.kind == 's' {
		return p.fail(t)
	}
	return nil
}

// parseGQL reads a query document: one query operation ("query
// Name($v: T!) { ... }" or a bare selection set) and the fragments it
// spreads. Mutations and subscriptions are refused.
func parseGQL(src string) ([]*gField, error) {
	toks, err := lexGQL(src)
	if err != nil {
		return nil, err
	}
	p := &gParser{toks: toks}
	frags := map[string]*gField{}
	var op []*gField
	for p.peek().kind != 0 {
		t := p.peek()
		switch {
		case t.kind == 'n' && t.text == "fragment":
			p.next()
			name := p.next()
			if on := p.next(); on.text != "on" {
				return nil, p.fail(on)
			}
			typ := p.next()
			sels, err := p.selections()
			if err != nil {
				return nil, err
			}
			frags[name.text] = &gField{name: "...", on: typ.text, sels: sels, line: name.line, col: name.col}
		case t.kind == 'n' && t.text != "query":
			return nil, fmt.Errorf("the GitHub double answers queries only, not %s", t.text)
		case op != nil:
			return nil, p.fail(t)
		default:
			if t.kind == 'n' {
				p.next()
				if p.peek().kind == 'n' {
					p.next()
				}
				if p.peek().text == "(" {
					for p.next().text != ")" {
						if p.peek().kind == 0 {
							return nil, p.fail(p.peek())
						}
					}
				}
			}
			sels, err := p.selections()
			if err != nil {
				return nil, err
			}
			op = sels
		}
	}
	if op == nil {
		return nil, fmt.Errorf("no query in the document")
	}
	return spread(op, frags, 0)
}

// spread replaces each fragment spread by its fragment.
func spread(sels []*gField, frags map[string]*gField, depth int) ([]*gField, error) {
	if depth > 20 {
		return nil, fmt.Errorf("fragments spread one another without end")
	}
	for i, f := range sels {
		if f.spread != "" {
			fr, ok := frags[f.spread]
			if !ok {
				return nil, gqlMessage(fmt.Sprintf("Fragment %s was used, but not defined", f.spread))
			}
			cp := *fr
			sels[i], f = &cp, &cp
		}
		var err error
		if f.sels, err = spread(f.sels, frags, depth+1); err != nil {
			return nil, err
		}
	}
	return sels, nil
}

func (p *gParser) selections() ([]*gField, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var out []*gField
	for p.peek().text != "}" || p.peek().kind == 's' {
		t := p.next()
		if t.kind == 'p' && t.text == "..." {
			f := &gField{name: "...", line: t.line, col: t.col}
			if n := p.next(); n.text == "on" && n.kind == 'n' && p.peek().kind == 'n' {
				f.on = p.next().text
				sels, err := p.selections()
				if err != nil {
					return nil, err
				}
				f.sels = sels
			} else if n.kind == 'n' {
				f.spread = n.text
			} else {
				return nil, p.fail(n)
			}
			out = append(out, f)
			continue
		}
		if t.kind != 'n' {
			return nil, p.fail(t)
		}
		f := &gField{name: t.text, line: t.line, col: t.col}
		if p.peek().text == ":" {
			p.next()
			n := p.next()
			if n.kind != 'n' {
				return nil, p.fail(n)
			}
			f.alias, f.name = f.name, n.text
		}
		if p.peek().text == "(" {
			p.next()
			f.args = map[string]any{}
			for p.peek().text != ")" {
				name := p.next()
				if name.kind != 'n' {
					return nil, p.fail(name)
				}
				if err := p.expect(":"); err != nil {
					return nil, err
				}
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				f.args[name.text] = v
			}
			p.next()
		}
		if p.peek().text == "{" {
			sels, err := p.selections()
			if err != nil {
				return nil, err
			}
			f.sels = sels
		}
		out = append(out, f)
	}
	p.next()
	return out, nil
}
