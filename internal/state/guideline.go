package state

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/textcut"
)

// GuideLine acknowledges the guidance h gave a running loop: "Guidance applied
// in iteration 4 (from ann@box): use the v2 API".
func (h Handoff) GuideLine() string {
	s := fmt.Sprintf("Guidance applied in iteration %d", h.Iteration)
	if h.By != "" {
		s += " (from " + h.By + ")"
	}
	text, _, more := strings.Cut(strings.TrimSpace(h.Text), "\n")
	if cut := textcut.Runes(text, 80); cut != text {
		text = cut
	} else if more {
		text += textcut.Ellipsis
	}
	return s + ": " + text
}
