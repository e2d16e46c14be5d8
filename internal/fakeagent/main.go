package fakeagent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Exit codes of the fake agent itself (a plan's `exit N` may use any).
const (
	ExitUsage         = 2  // bad arguments, unreadable or malformed plan
	ExitActionFailed  = 3  // an action could not be done (missing file, OLD not found)
	ExitPromptMissing = 97 // expect-prompt did not find its text
	ExitPromptFound   = 98 // reject-prompt found its text
)

// Main runs the fake agent on the process's arguments, environment and standard
// streams and returns its exit code.
func Main() int {
	return run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
}

// agent is one invocation's context.
type agent struct {
	prompt string
	dir    string // $FAKEAGENT_DIR, or the plan's directory
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
}

func run(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == stubbornChild { // spawn-stubborn's child (Windows)
		_, _ = (&agent{stdout: stdout, stderr: stderr}).do(action{verb: "hang-stubborn"})
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "fakeagent: "+format+"\n", a...)
		return code
	}
	planPath, promptFile, promptArg := getenv("FAKEAGENT_PLAN"), "", false
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(args[i], "=")
		switch name {
		case "--plan", "--prompt-file":
			if !hasVal {
				if i+1 >= len(args) {
					return fail(ExitUsage, "%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if name == "--plan" {
				planPath = val
			} else {
				promptFile = val
			}
		case "--prompt-arg":
			promptArg = true
		}
	}

	var prompt []byte
	var err error
	switch {
	case promptFile != "":
		prompt, err = os.ReadFile(promptFile)
	case promptArg:
		if len(args) > 0 {
			prompt = []byte(args[len(args)-1])
		}
	case stdin != nil:
		prompt, err = io.ReadAll(stdin)
	}
	if err != nil {
		return fail(ExitUsage, "read prompt: %v", err)
	}

	a := &agent{prompt: string(prompt), dir: getenv("FAKEAGENT_DIR"), getenv: getenv, stdout: stdout, stderr: stderr}
	if a.dir == "" && planPath != "" {
		a.dir = filepath.Dir(planPath)
	}
	call := 1
	if a.dir != "" {
		if call, err = a.count(); err != nil {
			return fail(ExitUsage, "%v", err)
		}
		if err := os.WriteFile(filepath.Join(a.dir, fmt.Sprintf("prompt-%d.txt", call)), prompt, 0o600); err != nil {
			return fail(ExitUsage, "save prompt: %v", err)
		}
	}
	if planPath == "" {
		return 0 // no plan: an agent that does nothing
	}
	f, err := os.Open(planPath)
	if err != nil {
		return fail(ExitUsage, "open plan: %v", err)
	}
	p, err := parsePlan(planPath, f)
	_ = f.Close()
	if err != nil {
		return fail(ExitUsage, "%v", err)
	}
	for _, act := range p.forCall(call, a.prompt) {
		if code, done := a.do(act); done {
			if code != 0 {
				fmt.Fprintf(stderr, "fakeagent: %s:%d: %s: exit %d\n", planPath, act.line, act.verb, code)
			}
			return code
		}
	}
	return 0
}

// count increments and returns the persistent call counter. The new count
// replaces the file by a rename, never by rewriting it in place: an agent
// killed as it counts (agentloop's death kills its agents at once) leaves the
// old count or the new one, never an empty file that would start the count
// again (a reviewer's plan would then ask for its changes all over).
func (a *agent) count() (int, error) {
	if err := os.MkdirAll(a.dir, 0o700); err != nil {
		return 0, fmt.Errorf("create %s: %w", a.dir, err)
	}
	path := filepath.Join(a.dir, "calls")
	n := 0
	if b, err := os.ReadFile(path); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	n++
	tmp, err := os.CreateTemp(a.dir, ".calls-*")
	if err != nil {
		return 0, fmt.Errorf("count calls: %w", err)
	}
	_, err = tmp.WriteString(strconv.Itoa(n) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return 0, fmt.Errorf("count calls: %w", err)
	}
	return n, nil
}
