//go:build windows

package sandbox

import (
	"errors"
	"strings"
	"testing"
)

// --sandbox on Windows fails saying what agentloop cannot do there and what
// to do instead.
func TestCheckSaysWhatWindowsCannot(t *testing.T) {
	err := Check(t.Context())
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Check = %v, want ErrUnavailable", err)
	}
	for _, want := range []string{"no sandbox on Windows", "without --sandbox", "job object", "WSL 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
}
