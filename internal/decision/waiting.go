package decision

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Waiting is a record that waits for a person, as an inbox lists it: the
// record, since when it waits, and where (which run, on which engine).
type Waiting struct {
	NeedsYou
	Since  time.Time `json:"since"`
	RunID  string    `json:"run_id,omitempty"`
	Engine string    `json:"engine"` // local or temporal
}

// SortWaiting orders items oldest first: what has waited longest comes first.
func SortWaiting(items []Waiting) {
	slices.SortStableFunc(items, func(a, b Waiting) int {
		return cmp.Or(a.Since.Compare(b.Since), strings.Compare(a.Run, b.Run))
	})
}

// Who names the record's run, and for a graph's task its task and graph.
func (it Waiting) Who() string {
	if it.Task != "" {
		return fmt.Sprintf("%s (task %s of %s)", it.Run, it.Task, it.Graph)
	}
	return it.Run
}
