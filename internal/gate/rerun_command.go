package gate

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

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
