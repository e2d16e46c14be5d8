package state

import (
	"strings"
	"testing"
)

// Guidance is acknowledged by its first line, at most 80 characters, with an
// ellipsis when anything is left out.
func TestGuideLine(t *testing.T) {
	t.Parallel()
	at := "Guidance applied in iteration 4 (from ann@box): "
	for _, tt := range []struct{ text, want string }{
		{" use the v2 API\n", "use the v2 API"},
		{"use the v2 API\nand keep the old one", "use the v2 API…"},
		{strings.Repeat("é", 80), strings.Repeat("é", 80)},
		{strings.Repeat("é", 80) + "\nmore", strings.Repeat("é", 80) + "…"},
		{strings.Repeat("é", 81), strings.Repeat("é", 79) + "…"},
	} {
		if got := (Handoff{Iteration: 4, By: "ann@box", Text: tt.text}).GuideLine(); got != at+tt.want {
			t.Errorf("GuideLine(%q) = %q, want %q", tt.text, got, at+tt.want)
		}
	}
}
