package plan

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// literals returns each word's value when it is fixed (plain, quoted or
// escaped text without expansions), else "".
func literals(words []*syntax.Word) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i], _ = literal(w)
	}
	return out
}

func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, `\*?[`) {
				return "", false // escapes and globs: not worth guessing
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.Contains(l.Value, `\`) {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// leadingText is the literal text a word starts with ("PATH=" of
// "PATH=$PATH:bin").
func leadingText(w *syntax.Word) string {
	if len(w.Parts) > 0 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			return l.Value
		}
	}
	return ""
}

// shellWords are the shell's keywords and builtins (dash's and bash's): not
// programs on PATH.
var shellWords = map[string]bool{
	"!": true, ".": true, ":": true, "[": true, "[[": true, "]]": true, "alias": true, "bg": true, "break": true,
	"builtin": true, "case": true, "cd": true, "command": true, "continue": true, "declare": true, "dirs": true,
	"disown": true, "do": true, "done": true, "echo": true, "elif": true, "else": true, "enable": true, "esac": true,
	"eval": true, "exec": true, "exit": true, "export": true, "false": true, "fc": true, "fg": true, "fi": true,
	"for": true, "function": true, "getopts": true, "hash": true, "if": true, "in": true, "jobs": true, "kill": true,
	"let": true, "local": true, "mapfile": true, "popd": true, "printf": true, "pushd": true, "pwd": true,
	"read": true, "readarray": true, "readonly": true, "return": true, "select": true, "set": true, "shift": true,
	"shopt": true, "source": true, "test": true, "then": true, "time": true, "times": true, "trap": true,
	"true": true, "type": true, "typeset": true, "ulimit": true, "umask": true, "unalias": true, "unset": true,
	"until": true, "wait": true, "while": true, "{": true, "}": true,
}

func plainName(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-", r)) {
			return false
		}
	}
	return w[0] != '-'
}
