package plan

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A gate's shell line is read with mvdan.cc/sh's parser (the parser of shfmt
// and of go-task's shell): command substitutions, quoting, here-documents,
// case patterns and functions are the shell's own grammar, which a hand-written
// splitter on "&&", ";" and "|" gets wrong ("n=$(cat f | wc -l)" is not a
// command named "f"). Only its syntax package is used: the standard library
// and nothing else.

// ShellPrograms returns the programs a shell command line (run as `sh -c
// LINE`) surely starts, by the names it looks up on PATH: the first word of a
// simple command that runs whatever the status of the commands before it, in
// pipelines, subshells, blocks and command substitutions, after its VAR=value
// assignments, when that word is a plain name that is not a keyword, a builtin
// or a function of the line. A name is left out when the shell may never look
// it up or may find it elsewhere:
//
//   - a command whose failure the line handles or that runs only on a
//     condition: left of "||", after "&&" or in an if, while, until, for or
//     case body (except after builtins that do not decide, such as "cd"),
//     after a program under "set -e", negated with "!";
//   - a name the line probes for ("command -v X", "type X", "which X", "hash X");
//   - anything after a command that may install software (a word containing
//     "install", or "add" or "i" as an argument);
//   - every name, when the line changes PATH, sources a file, evals, defines an
//     alias, or parses neither as a POSIX nor as a bash line (the shell then
//     runs nothing).
//
// What it names is therefore missing for sure when PATH lacks it; the rest is
// found when the line runs (the shell's exit 127).
func ShellPrograms(line string) []string {
	if strings.ContainsRune(line, '\r') {
		return nil // the parser reads \r as a line end, the shell as a character of a word
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(line), "")
	if err != nil {
		// dash reads "cmd &> f" as "cmd &" and "> f", the parser's POSIX mode
		// refuses it; bash's grammar reads what sh accepts on most systems.
		if f, err = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), ""); err != nil {
			return nil
		}
	}
	s := &shellScan{funcs: map[string]bool{}, exits: map[string]bool{}, probed: map[string]bool{}}
	syntax.Walk(f, s.survey)
	if s.opaque {
		return nil
	}
	s.stmts(f.Stmts, true)
	return s.out
}

type shellScan struct {
	funcs   map[string]bool // functions the line defines
	exits   map[string]bool // functions that may exit the shell
	probed  map[string]bool // names the line asks the shell about
	opaque  bool            // what runs cannot be known without running it
	errexit bool            // set -e is on
	stopped bool            // a command ran that may install programs
	out     []string
}

// stmts walks a list of statements; sure says whether the list surely runs.
func (s *shellScan) stmts(list []*syntax.Stmt, sure bool) {
	for _, st := range list {
		s.stmt(st, sure)
		if sure && s.errexit && !undeciding(st) {
			sure = false // under set -e, what follows runs only if this succeeded
		}
		if isCall(st, "set") && setsErrexit(callArgs(st)) {
			s.errexit = true
		}
		if isCall(st, "exec") && len(callArgs(st)) > 1 || s.mayExit(st) {
			sure = false // what follows may not run
		}
		if mayInstall(st) {
			s.stopped = true
		}
	}
}

func (s *shellScan) stmt(st *syntax.Stmt, sure bool) {
	if st.Negated {
		sure = false // its failure is the point
	}
	for _, r := range st.Redirs {
		s.word(r.Word, sure)
		s.word(r.Hdoc, sure)
	}
	if st.Cmd != nil {
		s.cmd(st.Cmd, sure)
	}
}

func (s *shellScan) cmd(c syntax.Command, sure bool) {
	switch c := c.(type) {
	case *syntax.CallExpr:
		s.call(c, sure)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt:
			s.stmt(c.X, sure)
			s.stmt(c.Y, sure && undeciding(c.X))
		case syntax.OrStmt:
			// "X || true" tolerates X's failure: X still runs. "X || Y" with
			// a program Y is a fallback: X may be missing on purpose.
			s.stmt(c.X, sure && undeciding(c.Y))
			s.stmt(c.Y, false)
		default: // a pipeline: every part starts
			s.stmt(c.X, sure)
			s.stmt(c.Y, sure)
		}
	case *syntax.Subshell:
		s.stmts(c.Stmts, sure)
	case *syntax.Block:
		s.stmts(c.Stmts, sure)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			s.stmts(c.Cond, false)
			s.stmts(c.Then, false)
		}
	case *syntax.WhileClause:
		s.stmts(c.Cond, false)
		s.stmts(c.Do, false)
	case *syntax.ForClause:
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			for _, w := range wi.Items {
				s.word(w, sure)
			}
		}
		s.stmts(c.Do, false)
	case *syntax.CaseClause:
		s.word(c.Word, sure)
		for _, it := range c.Items {
			s.stmts(it.Stmts, false)
		}
	case *syntax.DeclClause:
		for _, a := range c.Args {
			s.assign(a, sure)
		}
	case *syntax.TimeClause:
		if c.Stmt != nil {
			s.stmt(c.Stmt, sure)
		}
	case *syntax.FuncDecl:
		// The body runs only when called, and the calls are not programs.
	default:
		// Arithmetic, [[ ]], let: only their substitutions run.
		syntax.Walk(c, s.substitutions(sure))
	}
}

func (s *shellScan) call(c *syntax.CallExpr, sure bool) {
	for _, a := range c.Assigns {
		s.assign(a, sure)
	}
	for _, w := range c.Args {
		s.word(w, sure)
	}
	if len(c.Args) == 0 || !sure || s.stopped {
		return
	}
	for _, a := range c.Assigns {
		if a.Name != nil && a.Name.Value == "PATH" {
			return // looked up in the PATH given to this command
		}
	}
	args := literals(c.Args)
	name, ok := args[0], args[0] != ""
	switch name {
	case "exec", "time":
		if len(args) < 2 {
			return
		}
		name, ok = args[1], args[1] != ""
	case "command":
		if len(args) < 2 || strings.HasPrefix(args[1], "-") {
			return // -v, -V: a probe; -p: the default PATH
		}
		name, ok = args[1], args[1] != ""
	}
	if !ok || !plainName(name) || shellWords[name] || s.funcs[name] || s.probed[name] || slices.Contains(s.out, name) {
		return
	}
	s.out = append(s.out, name)
}

func (s *shellScan) assign(a *syntax.Assign, sure bool) {
	s.word(a.Value, sure)
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			s.word(e.Value, sure)
		}
	}
}

// word walks the command and process substitutions of a word: they run when it
// is expanded.
func (s *shellScan) word(w *syntax.Word, sure bool) {
	if w != nil {
		syntax.Walk(w, s.substitutions(sure))
	}
}

func (s *shellScan) substitutions(sure bool) func(syntax.Node) bool {
	return func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			s.stmts(n.Stmts, sure)
			return false
		case *syntax.ProcSubst:
			s.stmts(n.Stmts, sure)
			return false
		}
		return true
	}
}
