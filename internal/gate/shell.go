package gate

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// shWord is one word of a shell command: its text as written and its value
// once quotes and escapes are removed.
type shWord struct {
	raw, lit string
	expands  bool // holds a $ expansion: its value is known only when the shell runs
}

// shCommand is one simple command of a shell line: its words and its
// redirections, and where it stands in the line.
type shCommand struct {
	start, end int // byte offsets in the line
	words      []shWord
	redirs     []string // as written ("2>&1", "> out.txt")
}

// shParse splits a shell line into its simple commands, joined by ;, &&, ||,
// | or newlines. It refuses what it cannot follow without running a shell:
// command substitution, subshells and groups, here-documents, background
// jobs, control structures.
func shParse(line string) ([]shCommand, error) {
	p := &shParser{s: line}
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.cmds, nil
}

type shParser struct {
	s    string
	i    int
	cmds []shCommand
	cur  *shCommand
}

var shKeywords = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "fi": true, "for": true, "while": true,
	"until": true, "do": true, "done": true, "case": true, "esac": true, "function": true, "{": true, "}": true, "!": true, "[[": true}

func (p *shParser) run() error {
	for {
		p.skipBlanks()
		if p.i >= len(p.s) {
			p.endCommand()
			return nil
		}
		switch c := p.s[p.i]; {
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '\n' || c == ';' || c == '|':
			if strings.HasPrefix(p.s[p.i:], ";;") {
				return fmt.Errorf("it has a case statement")
			}
			p.endCommand()
			p.i++
			if p.i < len(p.s) && (p.s[p.i] == '|' || p.s[p.i] == '&') && c == '|' {
				p.i++
			}
		case c == '&':
			if !strings.HasPrefix(p.s[p.i:], "&&") && !strings.HasPrefix(p.s[p.i:], "&>") {
				return fmt.Errorf("it runs a command in the background (&)")
			}
			if strings.HasPrefix(p.s[p.i:], "&>") {
				if err := p.redirect(""); err != nil {
					return err
				}
				continue
			}
			p.endCommand()
			p.i += 2
		case c == '(' || c == ')':
			return fmt.Errorf("it has a subshell or a function ( )")
		case c == '>' || c == '<':
			if err := p.redirect(""); err != nil {
				return err
			}
		default:
			start := p.i
			w, err := p.word()
			if err != nil {
				return err
			}
			if p.i < len(p.s) && (p.s[p.i] == '>' || p.s[p.i] == '<') && isDigits(w.raw) {
				if err := p.redirect(w.raw); err != nil {
					return err
				}
				continue
			}
			if p.cur == nil {
				p.cur = &shCommand{start: start}
				if shKeywords[w.raw] {
					return fmt.Errorf("it is a shell script (%s)", w.raw)
				}
			}
			p.cur.words = append(p.cur.words, w)
			p.cur.end = p.i
		}
	}
}

func (p *shParser) skipBlanks() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || (p.s[p.i] == '\\' && p.i+1 < len(p.s) && p.s[p.i+1] == '\n')) {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
}

func (p *shParser) endCommand() {
	if p.cur != nil {
		p.cmds = append(p.cmds, *p.cur)
		p.cur = nil
	}
}

// redirect reads a redirection and its target word; fd is the number before it.
func (p *shParser) redirect(fd string) error {
	start := p.i - len(fd)
	op := p.i
	for p.i < len(p.s) && strings.IndexByte("<>&|", p.s[p.i]) >= 0 && p.i-op < 3 {
		p.i++
	}
	if strings.HasPrefix(p.s[op:p.i], "<<") {
		return fmt.Errorf("it has a here-document")
	}
	p.skipBlanks()
	if _, err := p.word(); err != nil {
		return err
	}
	if p.cur == nil {
		p.cur = &shCommand{start: start}
	}
	p.cur.redirs = append(p.cur.redirs, p.s[start:p.i])
	p.cur.end = p.i
	return nil
}

// word reads one word at p.i.
func (p *shParser) word() (shWord, error) {
	start := p.i
	var lit strings.Builder
	w := shWord{}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')':
			w.raw, w.lit = p.s[start:p.i], lit.String()
			return w, nil
		case c == '`':
			return w, fmt.Errorf("it has a command substitution (`)")
		case c == '\\':
			if p.i+1 < len(p.s) {
				lit.WriteByte(p.s[p.i+1])
			}
			p.i = min(p.i+2, len(p.s))
			continue
		case c == '\'':
			end := strings.IndexByte(p.s[p.i+1:], '\'')
			if end < 0 {
				return w, fmt.Errorf("a quote is not closed")
			}
			lit.WriteString(p.s[p.i+1 : p.i+1+end])
			p.i += end + 2
			continue
		case c == '"':
			p.i++
			for {
				if p.i >= len(p.s) {
					return w, fmt.Errorf("a quote is not closed")
				}
				d := p.s[p.i]
				if d == '"' {
					p.i++
					break
				}
				if err := p.dollar(&w); err != nil {
					return w, err
				}
				if d == '`' {
					return w, fmt.Errorf("it has a command substitution (`)")
				}
				if d == '\\' && p.i+1 < len(p.s) && strings.IndexByte("\"\\$`\n", p.s[p.i+1]) >= 0 {
					p.i++
					d = p.s[p.i]
				}
				lit.WriteByte(d)
				p.i++
			}
			continue
		}
		if err := p.dollar(&w); err != nil {
			return w, err
		}
		lit.WriteByte(c)
		p.i++
	}
	w.raw, w.lit = p.s[start:p.i], lit.String()
	return w, nil
}

// dollar marks an expansion at p.i, refusing a command substitution.
func (p *shParser) dollar(w *shWord) error {
	if p.s[p.i] != '$' || p.i+1 >= len(p.s) {
		return nil
	}
	if p.s[p.i+1] == '(' {
		return fmt.Errorf("it has a command substitution $( )")
	}
	w.expands = true
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

var shSafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./^-]+$`) })

// shQuote writes s as one shell word.
func shQuote(s string) string {
	if shSafe().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
