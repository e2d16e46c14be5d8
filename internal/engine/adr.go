package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// Architectural reports whether the run escalated on an architectural question:
// the answer is then a decision worth an ADR.
func Architectural(st *state.State) bool {
	if len(st.History) == 0 {
		return false
	}
	return slices.Contains(st.History[len(st.History)-1].Triggers, decision.TriggerArchitecture)
}

var nonSlug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// WriteADR records a human's architectural decision as docs/adr/NNNN-title.md
// of the work tree, and returns its path.
func WriteADR(workDir string, st *state.State, guidance string) (string, error) {
	dir := filepath.Join(workDir, "docs", "adr")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	n := 1
	for _, e := range entries {
		var k int
		if _, err := fmt.Sscanf(e.Name(), "%04d-", &k); err == nil && k >= n {
			n = k + 1
		}
	}
	title := st.Reason
	if title == "" {
		title = "decision for " + st.Name
	}
	slug := strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(slug) > 50 {
		slug = strings.Trim(slug[:50], "-")
	}
	path := filepath.Join(dir, fmt.Sprintf("%04d-%s.md", n, slug))
	body := fmt.Sprintf("# %d. %s\n\nStatus: accepted\n\n## Context\n\nagentloop run %s (%s) escalated after %d iterations: %s\n%s\n## Decision\n\n%s\n\n## Consequences\n\nThe loop continues with this decision in every prompt of the run.\n",
		n, title, st.Name, st.RunID, st.TotalIterations, st.Reason, earlierAnswers(st, guidance), guidance)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(body)
	return path, err
}

// earlierAnswers recalls, for an architecture decision, the guidance the run
// was given before this answer (each with its segment, who and when): the
// decision is taken in their light. Empty when there was none.
func earlierAnswers(st *state.State, answer string) string {
	hs := st.Handoffs
	// The answer itself is the last hand-off when it was recorded already.
	if n := len(hs); n > 0 && hs[n-1].Kind == state.HandoffGuidance && hs[n-1].Text == answer {
		hs = hs[:n-1]
	}
	var b strings.Builder
	for _, h := range hs {
		if h.Kind != state.HandoffGuidance {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nEarlier answers in this run:\n\n")
		}
		who := ""
		if h.By != "" {
			who = " from " + h.By
		}
		fmt.Fprintf(&b, "- segment %d, guidance%s at %s (after attempt %d):\n  > %s\n", h.Segment, who, h.At.UTC().Format("2006-01-02 15:04 UTC"), h.After,
			strings.ReplaceAll(strings.TrimSpace(h.Text), "\n", "\n  > "))
	}
	return b.String()
}
