package review

import "github.com/agentloop/agentloop/internal/evidence"

// Tags the reviewer may attach to a verdict. The decision engine escalates on
// security, scope_creep, architecture and requirements_conflict.
const (
	TagSecurity             = "security"
	TagScopeCreep           = "scope_creep"
	TagArchitecture         = "architecture"
	TagRequirementsConflict = "requirements_conflict"
	TagTestTampering        = "test_tampering"
	TagMissingContext       = "missing_context"
	TagNeedsHuman           = "needs_human"
)

// Finding severities.
const (
	SeverityBlocker = "blocker"
	SeverityMajor   = "major"
	SeverityMinor   = "minor"
	SeverityNit     = "nit"
)

// KnownTags lists the tags of the reviewer contract, in the order prompts show them.
func KnownTags() []string {
	return []string{TagSecurity, TagScopeCreep, TagArchitecture, TagRequirementsConflict, TagTestTampering, TagMissingContext, TagNeedsHuman}
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
