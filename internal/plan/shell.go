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
