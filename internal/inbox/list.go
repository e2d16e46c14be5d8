package inbox

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
)

// WriteJSON writes items as one JSON array.
func WriteJSON(w io.Writer, items []decision.Waiting) error {
	if items == nil {
		items = []decision.Waiting{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(items)
}

// Write lists items for people: each record's run, kind and age, its
// evidence, its question, and each option with its command; base is the
// folder report paths are shown relative to.
func Write(w io.Writer, items []decision.Waiting, now time.Time, base string) error {
	var b strings.Builder
	switch len(items) {
	case 0:
		b.WriteString("Nothing needs you.\n")
	case 1:
		b.WriteString("1 loop needs you:\n")
	default:
		fmt.Fprintf(&b, "%d loops need you:\n", len(items))
	}
	for _, it := range items {
		b.WriteString("\n")
		fmt.Fprintf(&b, "%s — %s, %s", it.Who(), KindText(it.Kind), Age(now.Sub(it.Since)))
		if it.Engine == "temporal" {
			b.WriteString(", on Temporal")
		}
		b.WriteString("\n")
		for _, l := range strings.Split(strings.TrimSpace(it.Evidence), "\n") {
			if l != "" {
				fmt.Fprintf(&b, "  %s\n", l)
			}
		}
		fmt.Fprintf(&b, "  Question: %s\n", it.Question)
		for i, o := range it.Options {
			fmt.Fprintf(&b, "  %d) %s", i+1, o.Label)
			if o.TradeOff != "" {
				fmt.Fprintf(&b, " — %s", o.TradeOff)
			}
			b.WriteString("\n")
			if o.Command != "" {
				fmt.Fprintf(&b, "     %s\n", o.Command)
			}
		}
		if it.Report != "" {
			fmt.Fprintf(&b, "  Report: %s\n", rel(base, it.Report))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// KindText says what kind of record kind is, for people.
func KindText(kind string) string {
	switch kind {
	case decision.NeedsBudget:
		return "stopped by a budget"
	case decision.NeedsMerge:
		return "not merged"
	case decision.NeedsSetup:
		return "agent setup"
	}
	return "escalated"
}

// Age says how long ago d was, in the largest unit that fits.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func rel(base, p string) string {
	if base == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
