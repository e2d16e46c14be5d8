package decision

// EscalationClasses lists the names a procedure's escalation.on (the decider's
// Policy.EscalateOn) accepts, in the order they are documented: the names of the
// triggers that escalate at once when listed (security: the reviewer's tag,
// protected paths touched; scope_creep: changes outside the task's scope,
// seen a second time; architecture: the reviewer's tag, new dependencies;
// requirements_conflict, "conflict" for short), and test_tampering, whose
// repeated serious kind escalates whether it is listed or not. A secret in
// the diff, an oscillation after a fresh attempt and an agent that moved
// agentloop's records in git (moved_branch) always escalate; they are no
// classes of EscalateOn.
func EscalationClasses() []string {
	return []string{TriggerSecurity, TriggerScopeCreep, TriggerArchitecture, TriggerConflict, "conflict", TriggerTestTampering}
}
