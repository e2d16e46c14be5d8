package inbox

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// Item is one record of a list: the record, since when it waits, and where.
type Item struct {
	decision.NeedsYou
	Since  time.Time `json:"since"`
	RunID  string    `json:"run_id,omitempty"`
	Engine string    `json:"engine"` // local or temporal
}

// Current is the record a run's events leave waiting, and when it was made:
// the last needs_you, unless the run went on after it (a new session, an
// answer taken) or was ended by a person (resume --accept, --abort).
func Current(events []state.Event) (decision.NeedsYou, time.Time, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		switch d := events[i].Data.(type) {
		case state.NeedsYou:
			return d.NeedsYou, events[i].Time, true
		case state.RunStarted, state.GuidanceReceived, state.IterationStarted:
			// An iteration after it: the loop went on (a parked loop approved).
			return decision.NeedsYou{}, time.Time{}, false
		case state.RunFinished:
			if d.Status != state.StatusEscalated && d.Status != state.StatusAborted {
				return decision.NeedsYou{}, time.Time{}, false
			}
			if d.Status == state.StatusAborted && i > 0 && isNeeds(events[:i], decision.NeedsEscalated) {
				return decision.NeedsYou{}, time.Time{}, false // aborted by you, after the escalation
			}
		}
	}
	return decision.NeedsYou{}, time.Time{}, false
}

// isNeeds reports whether the last needs_you of events, before anything
// else ends it, is of kind.
func isNeeds(events []state.Event, kind string) bool {
	for i := len(events) - 1; i >= 0; i-- {
		switch d := events[i].Data.(type) {
		case state.NeedsYou:
			return d.Kind == kind
		case state.RunStarted, state.GuidanceReceived:
			return false
		}
	}
	return false
}

// Sort orders items oldest first: what has waited longest comes first.
func Sort(items []Item) {
	slices.SortStableFunc(items, func(a, b Item) int {
		return cmp.Or(a.Since.Compare(b.Since), strings.Compare(a.Run, b.Run))
	})
}

// WriteJSON writes items as one JSON array.
func WriteJSON(w io.Writer, items []Item) error {
	if items == nil {
		items = []Item{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(items)
}

// Write lists items for people: each record's run, kind and age, its
// evidence, its question, and each option with its command; base is the
// folder report paths are shown relative to.
func Write(w io.Writer, items []Item, now time.Time, base string) error {
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

// Who names the record's run, and for a graph's task its task and graph.
func (it Item) Who() string {
	if it.Task != "" {
		return fmt.Sprintf("%s (task %s of %s)", it.Run, it.Task, it.Graph)
	}
	return it.Run
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
