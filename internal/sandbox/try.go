package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
)

// SetupError is a sandbox that cannot be made for a command ([Sandbox.Try]):
// a configuration to fix before anything runs, never the failure of what
// would have run inside.
type SetupError struct {
	Program string // what would have run inside
	Dir     string
	Code    int    // the sandbox's exit code, -1 when it did not start
	Output  string // what the sandbox said
}

func (e *SetupError) Error() string {
	return fmt.Sprintf("the sandbox (%s) cannot be set up for %s in %s (exit %d): %s; "+
		"see what it binds with 'agentloop doctor', then change what it names (the sandbox's read: and write: in agentloop.yaml, or where the program lives), or run without --sandbox",
		cmp.Or(Backend, "none"), e.Program, e.Dir, e.Code, cmp.Or(e.Output, "no output"))
}

// tryTimeout bounds [Sandbox.Try]: making a sandbox that runs nothing takes
// milliseconds.
const tryTimeout = 20 * time.Second

// Try makes the sandbox that program, run in dir with env (nil: this
// process's), would get, with its mounts, agentloop's bridge and its
// network, and runs nothing in it (true): a sandbox that cannot be set up is
// a [*SetupError] found before the first iteration, not an agent's failure.
func (s *Sandbox) Try(ctx context.Context, dir string, env []string, program string) error {
	if env == nil {
		env = os.Environ()
	}
	p, err := s.policy(ctx, dir, env, program, true)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	var out bytes.Buffer
	spec := proc.Spec{Argv: []string{"true"}, Dir: dir, Env: slices.Clone(env), Stdout: &out, Stderr: &out, Timeout: tryTimeout}
	wrapped, _, done, err := s.wrap(ctx, spec, p) // sandbox_linux.go, sandbox_darwin.go
	if err != nil {
		return err
	}
	defer done()
	res, err := proc.Run(ctx, wrapped)
	if err != nil {
		return &SetupError{Program: program, Dir: p.Dir, Code: -1, Output: err.Error()}
	}
	if res.ExitCode != 0 {
		return &SetupError{Program: program, Dir: p.Dir, Code: res.ExitCode, Output: strings.TrimSpace(out.String())}
	}
	return nil
}
