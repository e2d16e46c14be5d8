package plan

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// mayExit reports a statement that may end the shell: an exit or return in
// it (not in a subshell or substitution), or a call of a function of the line
// that has one. "[ -f go.mod ] || exit 0; go test" may never run go.
func (s *shellScan) mayExit(st *syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.FuncDecl:
			return false
		case *syntax.CallExpr:
			if args := literals(n.Args); len(args) > 0 && (args[0] == "exit" || args[0] == "return" || s.exits[args[0]]) {
				found = true
			}
		}
		return !found
	})
	return found
}

func isCall(st *syntax.Stmt, name string) bool {
	args := callArgs(st)
	return len(args) > 0 && args[0] == name
}

func callArgs(st *syntax.Stmt) []string {
	if c, ok := st.Cmd.(*syntax.CallExpr); ok && !st.Negated {
		return literals(c.Args)
	}
	return nil
}

// undeciding reports a statement that runs only builtins that do not decide
// whether what follows runs (cd, export, echo, set, assignments): "cd sub &&
// make" runs make.
func undeciding(st *syntax.Stmt) bool {
	if st.Negated {
		return false
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return true
		}
		args := literals(c.Args)
		switch args[0] {
		case "cd", "pushd", "popd", "export", "set", "echo", "printf", ":", "true", "umask", "ulimit", "unset", "shift", "readonly", "trap":
			return true
		}
	case *syntax.DeclClause:
		return true
	case *syntax.BinaryCmd:
		return c.Op == syntax.AndStmt && undeciding(c.X) && undeciding(c.Y)
	case *syntax.Block:
		return !slices.ContainsFunc(c.Stmts, func(st *syntax.Stmt) bool { return !undeciding(st) })
	case *syntax.Subshell:
		return !slices.ContainsFunc(c.Stmts, func(st *syntax.Stmt) bool { return !undeciding(st) })
	}
	return false
}

// setsErrexit reports "set -e" and its spellings (set -eu, set -o errexit).
func setsErrexit(args []string) bool {
	for i, a := range args[1:] {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], "e") && a != "-o" {
			return true
		}
		if a == "-o" && i+2 < len(args) && args[i+2] == "errexit" {
			return true
		}
	}
	return false
}

// mayInstall reports a statement that may put programs on PATH: one with a
// word containing "install" (pip install, go install, install.sh), or "add" or
// "i" as an argument (yarn global add, npm i -g).
func mayInstall(st *syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			for i, w := range c.Args {
				v, _ := literal(w)
				if strings.Contains(strings.ToLower(v), "install") || i > 0 && (v == "add" || v == "i") {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
