package review

import (
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
)

// Finding severities.
const (
	SeverityBlocker = "blocker"
	SeverityMajor   = "major"
	SeverityMinor   = "minor"
	SeverityNit     = "nit"
)

// KnownTags lists the tags of the reviewer contract, in the order prompts
// show them. Package decision owns their names: a tag the decision engine
// escalates on (security, scope_creep, architecture, requirements_conflict)
// or acts on (test_tampering) is the name of the trigger it raises.
func KnownTags() []string {
	return []string{decision.TriggerSecurity, decision.TriggerScopeCreep, decision.TriggerArchitecture, decision.TriggerConflict,
		decision.TriggerTestTampering, decision.TagMissingContext, decision.TagNeedsHuman}
}

// KnownTag reports whether tag is part of the reviewer contract.
func KnownTag(tag string) bool {
	for _, k := range KnownTags() {
		if k == tag {
			return true
		}
	}
	return false
}

// UnknownTags returns the tags of r outside the contract. [Parse] keeps them (a
// person may learn from them) but the decision engine must not act on them.
func UnknownTags(r evidence.Review) []string {
	var out []string
	for _, t := range r.Tags {
		if !KnownTag(t) {
			out = append(out, t)
		}
	}
	return out
}
