package fakeagent

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// action is one line of a plan.
type action struct {
	line int
	verb string
	args []string
}

// section is the actions for a set of call numbers, or for prompts that name
// a failing test or hold a text.
type section struct {
	ranges  [][2]int // inclusive; empty for [*]
	failing string   // [failing NAME]
	text    string   // [prompt TEXT]
	actions []action
}

func (s *section) matches(n int, prompt string) bool {
	switch {
	case s.failing != "":
		return slices.Contains(failingNamed(prompt), s.failing)
	case s.text != "":
		return strings.Contains(prompt, s.text)
	}
	for _, r := range s.ranges {
		if n >= r[0] && n <= r[1] {
			return true
		}
	}
	return false
}

// plan is a parsed plan file.
type plan struct {
	def      *section
	sections []*section
}

// forCall returns the actions of call n with the given prompt.
func (p *plan) forCall(n int, prompt string) []action {
	for _, s := range p.sections {
		if s.matches(n, prompt) {
			return s.actions
		}
	}
	if p.def != nil {
		return p.def.actions
	}
	return nil
}

// arity is how many arguments an action takes; the last one takes the rest of
// the line.
func arity(verb string) (int, bool) {
	switch verb {
	case "hang", "hang-stubborn", "spawn-stubborn":
		return 0, true
	case "print", "stderr", "printfile", "delete", "fixone", "exit", "sleep", "flood",
		"flood-raw", "flood-deltas", "expect-prompt", "reject-prompt", "solve", "solveone", "fetch", "waitfor":
		return 1, true
	case "write", "append":
		return 2, true
	case "replace":
		return 3, true
	}
	return 0, false
}

// parsePlan reads a plan; name is used in errors.
func parsePlan(name string, r io.Reader) (*plan, error) {
	p := &plan{def: &section{}}
	cur := p.def
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			s, err := parseHeader(line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			if s == nil {
				cur = p.def
			} else {
				p.sections = append(p.sections, s)
				cur = s
			}
			continue
		}
		a, err := parseAction(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		a.line = n
		cur.actions = append(cur.actions, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read plan %s: %w", name, err)
	}
	return p, nil
}

// parseHeader parses [*] (nil section: the default), [1], [2-4], [1,3-5],
// [failing NAME] or [prompt TEXT].
func parseHeader(line string) (*section, error) {
	body, ok := strings.CutSuffix(line[1:], "]")
	if !ok {
		return nil, fmt.Errorf("section header %q lacks ']'", line)
	}
	if strings.TrimSpace(body) == "*" {
		return nil, nil
	}
	if name, ok := strings.CutPrefix(body, "failing "); ok && strings.TrimSpace(name) != "" {
		return &section{failing: strings.TrimSpace(name)}, nil
	}
	if text, ok := strings.CutPrefix(body, "prompt "); ok && strings.TrimSpace(text) != "" {
		return &section{text: strings.TrimSpace(text)}, nil
	}
	s := &section{}
	for part := range strings.SplitSeq(body, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err1 != nil || err2 != nil || a < 1 || b < a {
			return nil, fmt.Errorf("bad section %q: want [N], [N-M], [N,M] or [*] with 1 ≤ N ≤ M", line)
		}
		s.ranges = append(s.ranges, [2]int{a, b})
	}
	return s, nil
}

func parseAction(line string) (action, error) {
	verb, rest, _ := strings.Cut(line, " ")
	want, ok := arity(verb)
	if !ok {
		return action{}, fmt.Errorf("unknown action %q", verb)
	}
	a := action{verb: verb}
	rest = strings.TrimLeft(rest, " \t")
	for i := 0; i < want; i++ {
		var arg string
		var err error
		if i == want-1 {
			arg, err = lastArg(rest)
			rest = ""
		} else {
			arg, rest, err = word(rest)
		}
		if err != nil {
			return action{}, fmt.Errorf("%s: %w", verb, err)
		}
		a.args = append(a.args, arg)
	}
	if rest != "" {
		return action{}, fmt.Errorf("%s takes no arguments, got %q", verb, rest)
	}
	return a, check(a)
}

// check validates the arguments that must parse.
func check(a action) error {
	var err error
	switch a.verb {
	case "exit":
		_, err = strconv.Atoi(a.args[0])
	case "sleep":
		_, err = time.ParseDuration(a.args[0])
	case "flood", "flood-raw", "flood-deltas":
		_, err = parseSize(a.args[0])
	case "printfile", "delete", "fixone", "write", "append", "replace", "solve", "solveone", "waitfor":
		if a.args[0] == "" {
			err = errors.New("missing path")
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", a.verb, err)
	}
	return nil
}

// parseSize parses a byte count with an optional K, M or G (binary) suffix.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(s), "B"), "I")
	switch {
	case strings.HasSuffix(t, "K"):
		mult = 1 << 10
	case strings.HasSuffix(t, "M"):
		mult = 1 << 20
	case strings.HasSuffix(t, "G"):
		mult = 1 << 30
	}
	if mult > 1 {
		t = t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("bad size %q: want bytes, optionally with K, M or G", s)
	}
	return n * mult, nil
}

// word splits off one argument: a Go quoted string or a run of non-blanks.
func word(s string) (arg, rest string, err error) {
	if s == "" {
		return "", "", fmt.Errorf("missing argument")
	}
	if s[0] == '"' {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", "", fmt.Errorf("bad quoted string in %q", s)
		}
		arg, _ = strconv.Unquote(q)
		return arg, strings.TrimLeft(s[len(q):], " \t"), nil
	}
	arg, rest, _ = strings.Cut(s, " ")
	return arg, strings.TrimLeft(rest, " \t"), nil
}

// lastArg is the rest of the line: a Go quoted string if it is exactly one,
// otherwise the raw text with \n, \t and \\ escapes.
func lastArg(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		if q, err := strconv.QuotedPrefix(s); err == nil && len(q) == len(s) {
			return strconv.Unquote(q)
		}
	}
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t").Replace(s), nil
}
