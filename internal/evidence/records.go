package evidence

import "strings"

// RecordKind names one way an agent changed agentloop's own records in git:
// the run's checkpoint refs, the branch the work tree is on, or HEAD.
type RecordKind string

// Record kinds.
const (
	RecordRefDeleted   RecordKind = "ref_deleted"       // a checkpoint ref of the run was deleted
	RecordRefMoved     RecordKind = "ref_moved"         // a checkpoint ref of the run points elsewhere
	RecordRefAdded     RecordKind = "ref_added"         // a ref appeared among the run's checkpoints
	RecordSwitched     RecordKind = "branch_switched"   // HEAD is on another branch, or detached
	RecordRewritten    RecordKind = "history_rewritten" // the branch moved to a commit that does not contain the old one
	RecordReset        RecordKind = "reset"             // the branch moved back, or git reset ran
	RecordCommitted    RecordKind = "committed"         // the agent committed on the branch
	RecordUnreadable   RecordKind = "unreadable"        // agentloop could not read the git state after the agent
	RecordUnrepairable RecordKind = "unrepairable"      // what agentloop could not put back
)

// RecordChange is one change an agent made to agentloop's records, and what
// agentloop did about it.
type RecordChange struct {
	Kind RecordKind `json:"kind"`
	// What is what happened, for people: "deleted refs/agentloop/build/r1/iter-1-start".
	What string `json:"what"`
	// Repaired is what agentloop put back ("restored", "back on main at 1a2b3c4d"),
	// "" when it could not.
	Repaired string `json:"repaired,omitempty"`
}

// Escalates reports whether the change needs a person: everything but a plain
// commit on the branch, which agentloop undoes while keeping its changes in the
// work tree.
func (c RecordChange) Escalates() bool { return c.Kind != RecordCommitted }

// String is the change in one line: "deleted refs/… (restored)".
func (c RecordChange) String() string {
	if c.Repaired == "" {
		return c.What + " (not repaired)"
	}
	return c.What + " (" + c.Repaired + ")"
}

// RecordChanges is what one agent run did to agentloop's records.
type RecordChanges []RecordChange

// Escalates reports whether any change needs a person.
func (cs RecordChanges) Escalates() bool {
	for _, c := range cs {
		if c.Escalates() {
			return true
		}
	}
	return false
}

// String lists the changes in one line, separated by "; ".
func (cs RecordChanges) String() string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, "; ")
}
