package plan

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// survey is the first pass: what makes names unknowable.
func (s *shellScan) survey(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.FuncDecl:
		if n.Name == nil { // "()" alone, which bash reads as a nameless function
			s.opaque = true
			return false
		}
		if _, ok := n.Body.Cmd.(*syntax.CallExpr); ok {
			s.opaque = true // "f() cmd": the shells want a compound command
			return false
		}
		s.funcs[n.Name.Value] = true
		if n.Body != nil && s.mayExit(n.Body) {
			s.exits[n.Name.Value] = true
		}
	case *syntax.Stmt:
		// ">0>f": the shells read "0>" as a descriptor number, leaving the
		// first ">" without a target (a syntax error); the parser does not.
		for _, r := range n.Redirs {
			if l := r.Word.Lit(); l != "" && strings.Trim(l, "0123456789") == "" {
				for _, r2 := range n.Redirs {
					if r2.N == nil && r2.OpPos.Offset() == r.Word.End().Offset() {
						s.opaque = true
					}
				}
			}
		}
	case *syntax.ExtGlob:
		s.opaque = true // bash reads !(x) only after shopt -s extglob
	case *syntax.DeclClause:
		for _, a := range n.Args {
			if a.Name != nil && a.Name.Value == "PATH" {
				s.opaque = true
			}
		}
	case *syntax.CallExpr:
		args := literals(n.Args)
		if len(args) == 0 {
			// PATH=... for the shell; "PATH=... cmd" is the command's alone.
			for _, a := range n.Assigns {
				if a.Name != nil && a.Name.Value == "PATH" {
					s.opaque = true
				}
			}
			return true
		}
		switch args[0] {
		case ".", "source", "eval", "alias", "enable", "unalias":
			s.opaque = true
		case "in", "do", "done", "then", "fi", "esac", "elif", "else", "}", "]]", "function", "select":
			s.opaque = true // a reserved word where a command goes: sh refuses the line
		case "export", "readonly", "local", "declare", "typeset":
			for _, w := range n.Args[1:] {
				if lead := leadingText(w); lead == "PATH" || strings.HasPrefix(lead, "PATH=") {
					s.opaque = true
				}
			}
		case "hash":
			if slices.Contains(args, "-p") {
				s.opaque = true
			}
			s.probe(args[1:])
		case "type", "which", "whereis":
			s.probe(args[1:])
		case "command":
			if len(args) > 1 && (args[1] == "-v" || args[1] == "-V") {
				s.probe(args[2:])
			}
		}
	}
	return true
}

func (s *shellScan) probe(names []string) {
	for _, a := range names {
		s.probed[a] = true
	}
}
