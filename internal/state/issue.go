package state

import "time"

// Issue is the tracker issue a run is taken from, and the ids of what
// agentloop wrote on it, kept so that a restart finds them and never writes
// a second comment or pull request.
type Issue struct {
	Ref string `json:"ref"` // the issue, as forge writes it (owner/repo#N)
	// Task is what the agent is asked to do, from the issue as it was read
	// last (title, body, comments), so that every resume gives it again.
	Task string `json:"task"`
	// Branch is the branch the run's work is on; Base the branch its pull
	// request goes into.
	Branch string `json:"branch"`
	Base   string `json:"base,omitempty"`
	// Comment is the progress comment agentloop keeps up to date.
	Comment int64 `json:"comment,omitempty"`
	// Asked is the comment that asks an escalation's question; AskedFor
	// names the escalation it asks (segment and attempt), so that it is
	// asked once.
	Asked    int64  `json:"asked,omitempty"`
	AskedFor string `json:"asked_for,omitempty"`
	// Carried is the question over a cap a later question carries: one
	// about the pull request (its branch pushed to by someone else), Asked
	// staying the cap question's comment, a writer's answer after it still
	// taken for it; or a continuation's escalation, the cap question waiting
	// again once it is answered, for a command after that answer.
	Carried string `json:"carried,omitempty"`
	// Carrier is the comment of the question AskedFor when it carries
	// another and is answered by a command of its own (one about commits
	// someone else pushed): a command after Carrier answers it, one between
	// Asked and Carrier the question it carries.
	Carrier int64 `json:"carrier,omitempty"`
	// Questions counts the questions about the pull request posted, each
	// one's marker its count: a question asked again (its failure mended
	// and come back, at the same count) is a new comment, answered only by
	// a command after it, never by the one that answered it before.
	Questions int `json:"questions,omitempty"`
	// PR is the pull request opened from Branch.
	PR    int    `json:"pr,omitempty"`
	PRURL string `json:"pr_url,omitempty"`
	// Fixes counts the continuations pushed on the pull request for each
	// class of failure ("check NAME", "review", "conflict"), for its cap.
	Fixes map[string]int `json:"fixes,omitempty"`
	// Granted counts, for each class of failure, the new allowances of
	// continuations writers' guidance gave it over its cap.
	Granted map[string]int `json:"granted,omitempty"`
	// Fixing is the class of the continuation under way, its work not
	// pushed yet: a restart pushes it, never starting another.
	Fixing string `json:"fixing,omitempty"`
	// Reviewed is the newest review, and Commented the newest comment of a
	// review thread, taken as evidence (each by its own ids): one is acted
	// on once.
	Reviewed  int64 `json:"reviewed,omitempty"`
	Commented int64 `json:"commented,omitempty"`
	// Conflicts are the files of the merge of the base agentloop made for
	// a conflicting pull request, committed with their markers: the branch
	// is not pushed while one holds a marker.
	Conflicts []string `json:"conflicts,omitempty"`
	// Ended says the pull request was merged or closed, or that a
	// writer's /agentloop abort ended agentloop's work on it ("aborted"):
	// the run is over for good.
	Ended string `json:"ended,omitempty"`
	// Accepted are the questions over a cap (AskedFor) writers answered
	// with /agentloop accept, separated by spaces: those failures are not
	// asked about or pushed for again, until they are mended.
	Accepted string `json:"accepted,omitempty"`
	// Wrote is when agentloop last wrote on the issue, by the forge's
	// clock (its progress comment's last edit, which follows its every
	// other write), and Heard the newest comment its run had read then: a
	// change of the issue before Wrote is agentloop's own, which serve does
	// not take it again for; in Wrote's second (the forge's clock counts
	// seconds), only a comment newer than Heard is a person's.
	Wrote time.Time `json:"wrote,omitzero"`
	Heard int64     `json:"heard,omitempty"`
}
