//go:build !linux && !darwin && !windows

package sandbox

import (
	"context"
	"fmt"
	"runtime"

	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// Backend names the sandbox of this system: none.
const Backend = ""

// Check reports that this system has no sandbox agentloop can use.
func Check(context.Context) error {
	return fmt.Errorf("%w: agentloop sandboxes with bubblewrap on Linux and sandbox-exec on macOS, not on %s", ErrUnavailable, runtime.GOOS)
}

// Version is "" here.
func Version(context.Context) string { return "" }

func (s *Sandbox) wrap(ctx context.Context, spec proc.Spec, _ policy.Policy) (proc.Spec, string, func(), error) {
	return spec, "", func() {}, Check(ctx)
}
