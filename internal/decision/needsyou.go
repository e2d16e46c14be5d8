package decision

import (
	"fmt"
	"strings"
)

// The kinds of [NeedsYou]: why a run or a task waits for a person.
const (
	NeedsEscalated = "escalated" // the loop asks a question (escalation.md)
	NeedsBudget    = "budget"    // a budget stopped the run; it goes on when you raise it
	NeedsMerge     = "merge"     // a graph's task's work could not be merged back (a conflict, your changes in the way)
	NeedsSetup     = "setup"     // the agent cannot work until its setup is fixed
)

// NeedsYou is the one record of a run or a graph's task that waits for a
// person: what it asks, the evidence in short, and each way forward with the
// exact command that takes it. `agentloop inbox` lists these records, a
// needs-you notification carries one, and the events of the run keep each
// (the needs_you event).
type NeedsYou struct {
	Kind     string `json:"kind" yaml:"kind"` // escalated, budget, merge, setup
	Run      string `json:"run" yaml:"run"`
	Graph    string `json:"graph,omitempty" yaml:"graph,omitempty"` // the task graph, for a task's run
	Task     string `json:"task,omitempty" yaml:"task,omitempty"`
	Question string `json:"question" yaml:"question"`
	// Evidence is what the question rests on, in a few lines: the reason
	// the run stopped, the pattern found, the attempts.
	Evidence string   `json:"evidence,omitempty" yaml:"evidence,omitempty"`
	Options  []Answer `json:"options" yaml:"options"`
	// Report names the full report when there is one (escalation.md),
	// relative to the repository.
	Report string `json:"report,omitempty" yaml:"report,omitempty"`
}

// Answer is one way forward of a [NeedsYou] and the command that takes it.
type Answer struct {
	Label    string `json:"label" yaml:"label"`
	TradeOff string `json:"trade_off,omitempty" yaml:"trade_off,omitempty"`
	Command  string `json:"command" yaml:"command"`
}

// NeedsYou is the report as the one record of a run that waits for a person:
// its question, its evidence in short, and each option with its command.
func (r EscalationReport) NeedsYou() NeedsYou {
	n := NeedsYou{Kind: NeedsEscalated, Run: r.Run, Question: r.Question}
	var ev []string
	ev = append(ev, r.Reason)
	if r.Pattern != "" && r.Pattern != r.Reason {
		ev = append(ev, "Pattern: "+r.Pattern)
	}
	if r.Disagreement != "" {
		ev = append(ev, "Disagreement: "+r.Disagreement)
	}
	if k := len(r.History); k > 0 {
		h := r.History[k-1]
		ev = append(ev, fmt.Sprintf("%d %s; the last: %s; tests %s", k, plural(k, "iteration"), h.Did, h.Gates))
	}
	n.Evidence = strings.Join(ev, "\n")
	for _, o := range r.Options {
		a := Answer{Label: o.Label, TradeOff: o.TradeOff}
		if r.Run != "" {
			a.Command = o.Command(r.Run, r.Flags)
		}
		n.Options = append(n.Options, a)
	}
	if n.Question == "" {
		n.Question = "How should the loop go on?"
	}
	return n
}

func plural(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}
