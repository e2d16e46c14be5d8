package proc

import (
	"errors"
	"runtime"
	"slices"
	"testing"
)

// caffeinate holds an assertion against idle sleep for as long as agentloop
// lives (-w), whatever ends it.
func TestCaffeinateArgv(t *testing.T) {
	t.Parallel()
	if got, want := caffeinateArgv(4242), []string{"/usr/bin/caffeinate", "-i", "-w", "4242"}; !slices.Equal(got, want) {
		t.Errorf("caffeinateArgv = %q, want %q", got, want)
	}
	if runtime.GOOS != "darwin" {
		stop, err := KeepAwake()
		stop()
		if !errors.Is(err, ErrNoKeepAwake) || KeepAwakeCommand() != "" {
			t.Errorf("KeepAwake here = %v, %q; want ErrNoKeepAwake and no command", err, KeepAwakeCommand())
		}
	}
}
