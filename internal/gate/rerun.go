package gate

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Rerun modes: what a required gate whose tests failed does to tell a flaky
// test from a real failure before anything is decided.
const (
	// RerunFailed runs only the failed tests again, with the runner's own
	// selector (the default). A command whose runner agentloop cannot select
	// tests of is not run again: its failures count as they are.
	RerunFailed = "failed"
	// RerunWhole runs the gate's whole command again.
	RerunWhole = "whole"
	// RerunOff runs nothing again: every failure counts.
	RerunOff = "off"
)

// RerunModes lists the values a gate's rerun: key takes, the default first.
func RerunModes() []string { return []string{RerunFailed, RerunWhole, RerunOff} }

// RerunPlan is a gate's command rewritten to run only some of its failed
// tests again.
type RerunPlan struct {
	Argv     []string           // what to run: the gate's argv with the runner's selectors
	Command  string             // the same, as a person reads it
	Runner   string             // the test runner rewritten ("go test", "pytest", …)
	Selected []evidence.Finding // the failures it runs again
	Units    []string           // the packages or files it names
	// Left are failures no selector names (a package's own crash, a test
	// the output gives no name for): not run again, they count as they are.
	Left []evidence.Finding
}

// ErrNoSelector is wrapped by [PlanRerun]'s errors that come from the gate's
// command or output rather than from the failures: the command is a wrapper
// agentloop cannot see into, or its runner cannot select tests by name.
var ErrNoSelector = errors.New("cannot select tests by name")

// rerunner knows one test runner's command line.
type rerunner struct {
	name string
	// rewrite returns the arguments after the runner's own words (args),
	// changed to run only sel; units are what they name.
	rewrite func(args []shWord, sel []evidence.Finding) ([]shWord, []string, error)
	// selectable reports whether the runner can name a failure alone.
	selectable func(f evidence.Finding) bool
}

// PlanRerun rewrites a gate's command (argv, ["sh", "-c", LINE] for a shell
// line) to run only the failed tests among fails again, with the test
// runner's own selector: go test -run, gotestsum, pytest node ids, jest and
// vitest file paths and -t, cargo test --exact, Maven -Dtest, Gradle --tests,
// node --test-name-pattern, prove's files. A shell line may hold other
// commands (cd, a pipe into a report converter): only the runner's words
// change. An error wrapping [ErrNoSelector] says why the command cannot be
// rewritten, in words for people; no failure selectable is an error too.
func PlanRerun(argv []string, fails []evidence.Finding) (RerunPlan, error) {
	words, rebuild, err := commandWords(argv)
	if err != nil {
		return RerunPlan{}, err
	}
	r, n, err := findRunner(words)
	if err != nil {
		return RerunPlan{}, err
	}
	var plan RerunPlan
	plan.Runner = r.name
	for _, f := range fails {
		if f.Unit != "" && r.selectable(f) {
			plan.Selected = append(plan.Selected, f)
		} else {
			plan.Left = append(plan.Left, f)
		}
	}
	if len(plan.Selected) == 0 {
		return RerunPlan{}, fmt.Errorf("%w: the output names no failed test %s can run by name", ErrNoSelector, r.name)
	}
	args, units, err := r.rewrite(words[n:], plan.Selected)
	if err != nil {
		return RerunPlan{}, fmt.Errorf("%w: %s: %v", ErrNoSelector, r.name, err)
	}
	plan.Units = units
	plan.Argv, plan.Command = rebuild(append(slices.Clone(words[:n]), args...))
	return plan, nil
}

// CanRerun says, before any failure, whether [PlanRerun] can rewrite a
// gate's command: nil, or the error (wrapping [ErrNoSelector]) that says why not.
func CanRerun(argv []string) error {
	words, _, err := commandWords(argv)
	if err != nil {
		return err
	}
	_, _, err = findRunner(words)
	return err
}

// RerunWarning is [CanRerun]'s error for a command that seems to run tests
// (a word of it says test or spec: npm test, make test, ./run-tests.sh),
// nil for one that can be rewritten or seems to run none (a linter, true).
func RerunWarning(argv []string) error {
	err := CanRerun(argv)
	if err == nil {
		return nil
	}
	words := argv
	if len(argv) == 3 && argv[1] == "-c" {
		words = strings.Fields(argv[2])
	}
	for i, w := range words {
		w = strings.ToLower(path.Base(w))
		if i == 0 && (w == "test" || w == "[") {
			continue
		}
		if strings.Contains(w, "test") || strings.Contains(w, "spec") {
			return err
		}
	}
	return nil
}

// commandWords returns the words of the one test-runner command in argv and a
// function that puts a rewritten version of them back in place.
func commandWords(argv []string) ([]shWord, func([]shWord) ([]string, string), error) {
	if len(argv) == 0 {
		return nil, nil, fmt.Errorf("%w: the gate has no command", ErrNoSelector)
	}
	if len(argv) == 3 && (argv[0] == "sh" || argv[0] == "bash" || argv[0] == "/bin/sh") && argv[1] == "-c" {
		line := argv[2]
		cmds, err := shParse(line)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: agentloop does not rewrite this shell line: %v", ErrNoSelector, err)
		}
		var found []shCommand
		var firstErr error
		for _, c := range cmds {
			if _, _, err := findRunner(c.words); err == nil {
				found = append(found, c)
			} else if firstErr == nil {
				firstErr = err
			}
		}
		switch {
		case len(found) == 0 && firstErr != nil:
			return nil, nil, firstErr
		case len(found) == 0:
			return nil, nil, fmt.Errorf("%w: the shell line runs no command", ErrNoSelector)
		case len(found) > 1:
			return nil, nil, fmt.Errorf("%w: the shell line runs %d test commands; agentloop rewrites one", ErrNoSelector, len(found))
		}
		c := found[0]
		return c.words, func(ws []shWord) ([]string, string) {
			parts := make([]string, 0, len(ws)+len(c.redirs))
			for _, w := range ws {
				parts = append(parts, w.raw)
			}
			parts = append(parts, c.redirs...)
			s := line[:c.start] + strings.Join(parts, " ") + line[c.end:]
			return []string{argv[0], argv[1], s}, s
		}, nil
	}
	words := make([]shWord, len(argv))
	for i, a := range argv {
		words[i] = shWord{raw: shQuote(a), lit: a}
	}
	return words, func(ws []shWord) ([]string, string) {
		out, raw := make([]string, len(ws)), make([]string, len(ws))
		for i, w := range ws {
			out[i], raw[i] = w.lit, w.raw
		}
		return out, strings.Join(raw, " ")
	}, nil
}

// findRunner finds the test runner a simple command runs, after environment
// assignments and launchers (npx, uv run, …); n is how many words are the
// runner's own (program and subcommand), kept as they are.
func findRunner(words []shWord) (*rerunner, int, error) {
	i := 0
	for i < len(words) && isAssignment(words[i].lit) {
		i++
	}
	for i < len(words) {
		prog := path.Base(words[i].lit)
		next := ""
		if i+1 < len(words) {
			next = words[i+1].lit
		}
		switch {
		case words[i].expands:
			return nil, 0, fmt.Errorf("%w: the program is a shell variable (%s)", ErrNoSelector, words[i].raw)
		case prog == "go" && next == "test":
			return goRunner(), i + 2, nil
		case prog == "go" && next == "tool" && i+2 < len(words) && words[i+2].lit == "gotestsum":
			return gotestsumRunner(), i + 3, nil
		case prog == "gotestsum":
			return gotestsumRunner(), i + 1, nil
		case prog == "pytest" || prog == "py.test" || prog == "pytest-3":
			return pytestRunner(), i + 1, nil
		case strings.HasPrefix(prog, "python"):
			for j := i + 1; j+1 < len(words); j++ {
				if words[j].lit == "-m" {
					if words[j+1].lit == "pytest" {
						return pytestRunner(), j + 2, nil
					}
					break
				}
			}
			return nil, 0, fmt.Errorf("%w: %s runs a Python module other than pytest", ErrNoSelector, prog)
		case prog == "jest":
			return jestRunner(), i + 1, nil
		case prog == "vitest":
			if next == "run" {
				return vitestRunner(), i + 2, nil
			}
			if slices.Contains([]string{"watch", "dev", "related", "bench", "list", "init"}, next) {
				return nil, 0, fmt.Errorf("%w: vitest %s", ErrNoSelector, next)
			}
			return vitestRunner(), i + 1, nil
		case prog == "cargo" && next == "test":
			return cargoRunner(), i + 2, nil
		case prog == "mvn" || prog == "mvnw":
			return mavenRunner(), i + 1, nil
		case prog == "gradle" || prog == "gradlew":
			return gradleRunner(), i + 1, nil
		case prog == "node" && slices.ContainsFunc(words[i+1:], func(w shWord) bool { return w.lit == "--test" }):
			return nodeRunner(), i + 1, nil
		case prog == "prove":
			return proveRunner(), i + 1, nil
		case launcher(words, i) > 0:
			i += launcher(words, i)
			continue
		}
		return nil, 0, fmt.Errorf("%w: %s is not a test runner agentloop can rewrite (a script or a wrapper such as npm test or make runs tests agentloop cannot see)", ErrNoSelector, strings.Join(litWords(words[i:min(len(words), i+2)]), " "))
	}
	return nil, 0, fmt.Errorf("%w: the command runs no program", ErrNoSelector)
}

// launcher returns how many words at i start another program that follows
// them (npx, pnpm exec, yarn, uv run, poetry run, env, nice, time), 0 for none.
func launcher(words []shWord, i int) int {
	prog := path.Base(words[i].lit)
	next := ""
	if i+1 < len(words) {
		next = words[i+1].lit
	}
	n := 0
	switch prog {
	case "npx", "bunx", "pnpx", "time", "nice", "env":
		n = 1
	case "pnpm", "yarn", "bun":
		n = 1
		if next == "exec" || next == "run" || next == "x" {
			n = 2
		}
	case "uv", "poetry", "pipenv", "pdm", "hatch", "rye":
		if next == "run" {
			n = 2
		}
	}
	if n == 0 {
		return 0
	}
	// The launcher's own options and assignments: -y, --yes, -n 10, NAME=V.
	for i+n < len(words) {
		w := words[i+n].lit
		switch {
		case prog == "nice" && w == "-n" && i+n+1 < len(words):
			n += 2
		case strings.HasPrefix(w, "-") || (prog == "env" && isAssignment(w)):
			n++
		default:
			return n
		}
	}
	return n
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range w[:eq] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func litWords(ws []shWord) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.lit
	}
	return out
}

// newWord is a word agentloop adds, quoted for the shell.
func newWord(s string) shWord { return shWord{raw: shQuote(s), lit: s} }

// optSpec describes a runner's options well enough to tell an option's value
// from a positional argument.
type optSpec struct {
	values map[string]bool // take the next word as their value (unless written NAME=VALUE)
	bools  map[string]bool // take none
	drop   map[string]bool // removed, with their value: agentloop sets them itself
	// positional tells a positional argument from the value of an option the
	// spec does not know, for the word after such an option.
	positional func(string) bool
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// splitArgs sorts args into the option words kept (with their values) and the
// positional arguments; it stops at "--" (rest is what follows it, nil when
// there is none).
func splitArgs(args []shWord, o optSpec) (kept, pos, rest []shWord, err error) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		name, _, hasValue := strings.Cut(w.lit, "=")
		switch {
		case w.lit == "--":
			return kept, pos, append([]shWord{}, args[i+1:]...), nil
		case w.expands:
			return nil, nil, nil, fmt.Errorf("an argument is a shell variable (%s): agentloop cannot tell what it is", w.raw)
		case !strings.HasPrefix(w.lit, "-") || w.lit == "-":
			pos = append(pos, w)
			continue
		}
		takes := !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1].lit, "-") &&
			(o.values[name] || (!o.bools[name] && !o.positional(args[i+1].lit)))
		if o.drop[name] {
			if takes {
				i++
			}
			continue
		}
		kept = append(kept, w)
		if takes {
			i++
			kept = append(kept, args[i])
		}
	}
	return kept, pos, nil, nil
}

// quoteRE quotes a test name for a regular expression in the syntax Go,
// JavaScript and Rust share.
func quoteRE(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$/`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unique returns the distinct values of f over fs, sorted.
func unique(fs []evidence.Finding, f func(evidence.Finding) string) []string {
	var out []string
	for _, x := range fs {
		if v := f(x); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}
