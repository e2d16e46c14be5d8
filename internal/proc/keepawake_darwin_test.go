package proc

import (
	"strings"
	"testing"
)

// On macOS KeepAwake runs caffeinate until stopped.
func TestKeepAwakeDarwin(t *testing.T) {
	stop, err := KeepAwake()
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if !strings.HasPrefix(KeepAwakeCommand(), "/usr/bin/caffeinate -i -w ") {
		t.Errorf("KeepAwakeCommand = %q", KeepAwakeCommand())
	}
}
