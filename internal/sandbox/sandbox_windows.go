//go:build windows

package sandbox

import (
	"context"
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// Backend names the sandbox of this system: none.
const Backend = ""

// Check reports that agentloop cannot sandbox on Windows, and what to do.
func Check(context.Context) error {
	return fmt.Errorf("%w: agentloop has no sandbox on Windows (it keeps agents from writing outside the work tree and "+
		"from the network with bubblewrap on Linux and sandbox-exec on macOS); run without --sandbox, where each agent "+
		"and gate still runs in a job object that ends with its iteration, or run agentloop inside WSL 2 to sandbox them",
		ErrUnavailable)
}

// Version is "" here.
func Version(context.Context) string { return "" }

func (s *Sandbox) wrap(ctx context.Context, spec proc.Spec, _ policy.Policy) (proc.Spec, string, func(), error) {
	return spec, "", func() {}, Check(ctx)
}

// Inside is agentloop's part inside a sandbox, which Windows never starts.
func Inside(_ []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "agentloop %s: %v\n", InsideCommand, Check(context.Background()))
	return 2
}
