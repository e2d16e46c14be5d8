package ghdouble

import "strconv"

// value reads an argument's value: a variable, a string, a number, a
// boolean, null, an enum value, an object or a list.
func (p *gParser) value() (any, error) {
	t := p.next()
	switch {
	case t.kind == 'p' && t.text == "$":
		n := p.next()
		if n.kind != 'n' {
			return nil, p.fail(n)
		}
		return gVar(n.text), nil
	case t.kind == 's':
		return t.text, nil
	case t.kind == 'd':
		n, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, p.fail(t)
		}
		return n, nil
	case t.kind == 'p' && (t.text == "{" || t.text == "["):
		return p.compound(t.text)
	case t.kind == 'n':
		switch t.text {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		return t.text, nil // an enum value
	}
	return nil, p.fail(t)
}

// compound reads an object ({k: v}) or list ([v]) value after its opening.
func (p *gParser) compound(open string) (any, error) {
	end := map[string]string{"{": "}", "[": "]"}[open]
	m, list := map[string]any{}, []any{}
	for p.peek().text != end || p.peek().kind == 's' {
		if p.peek().kind == 0 {
			return nil, p.fail(p.peek())
		}
		if open == "{" {
			k := p.next()
			if err := p.expect(":"); err != nil || k.kind != 'n' {
				return nil, p.fail(k)
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			m[k.text] = v
			continue
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	p.next()
	if open == "{" {
		return m, nil
	}
	return list, nil
}
