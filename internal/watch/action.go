package watch

import (
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
)

// Action is one answer the view gives a run: the agentloop command that
// gives it, as a person would type it (the same code path).
type Action struct {
	Run  string
	Args []string // agentloop's arguments
	// Goes reports whether the command runs the loop on (a resume with
	// guidance): it outlives the view.
	Goes bool
}

// String is the action's command line.
func (a Action) String() string {
	parts := []string{"agentloop"}
	for _, s := range a.Args {
		if s == "" || strings.ContainsAny(s, " \t\n\"'\\$`") {
			s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// escalated reports whether the run waits for an answer to its escalation,
// which `resume` gives, not `guide`.
func escalated(r report.WatchRow, need *decision.Waiting) bool {
	return r.Status == state.StatusEscalated || (need != nil && need.Kind == decision.NeedsEscalated)
}

// Guide is the action that gives the run the guidance text: an escalated run
// is resumed with it; any other gets it queued for its next iteration.
func Guide(r report.WatchRow, need *decision.Waiting, text string) Action {
	if escalated(r, need) {
		return Action{Run: r.Name, Args: []string{"resume", r.Name, "--guidance", text}, Goes: true}
	}
	return Action{Run: r.Name, Args: []string{"guide", r.Name, text}}
}

// Accept ends the escalated run completed, at its best checkpoint.
func Accept(name string) Action {
	return Action{Run: name, Args: []string{"resume", name, "--accept"}}
}

// Abort ends the escalated run aborted.
func Abort(name string) Action {
	return Action{Run: name, Args: []string{"resume", name, "--abort"}}
}

// Stop ends the running run after its current iteration, or with now at once.
func Stop(name string, now bool) Action {
	a := Action{Run: name, Args: []string{"stop", name}}
	if now {
		a.Args = append(a.Args, "--now")
	}
	return a
}
