package evidence

// AgentOutcome names what happened to one agent run, in words a person can act
// on. The agent package decides it from the CLI's exit code, its result records
// and its stderr; everything else (the retry policy, the decision, the report,
// the escalation) reads it from here.
type AgentOutcome string

// Agent outcomes.
const (
	OutcomeSucceeded    AgentOutcome = "succeeded"     // the run finished normally
	OutcomeNoChange     AgentOutcome = "no_change"     // it finished but changed nothing in the work tree
	OutcomeFailed       AgentOutcome = "failed"        // it worked and then reported a failure
	OutcomeNotInstalled AgentOutcome = "not_installed" // the program is not on PATH
	OutcomeRefused      AgentOutcome = "refused"       // it refused to start: bad flag, permissions, untrusted folder, root
	OutcomeAuth         AgentOutcome = "auth"          // its authentication or configuration was rejected
	OutcomeRateLimited  AgentOutcome = "rate_limited"  // a rate or usage limit stopped it
	OutcomeTransient    AgentOutcome = "transient"     // the provider was overloaded or the network failed
	OutcomeCrashed      AgentOutcome = "crashed"       // it died without saying why (no result, no output)
	OutcomeTimedOut     AgentOutcome = "timed_out"     // agentloop ended it at a time limit
	OutcomeKilled       AgentOutcome = "killed"        // a signal ended it: another process, or agentloop at a token or cost limit
	// OutcomeMovedBranch: it changed agentloop's records in git (deleted or
	// moved checkpoint refs, switched the branch, reset or rewrote history);
	// agentloop put back what it could and the run needs a person.
	OutcomeMovedBranch AgentOutcome = "moved_branch"
)

// Text is the outcome as people read it ("authentication or configuration error").
func (o AgentOutcome) Text() string {
	switch o {
	case OutcomeSucceeded:
		return "succeeded"
	case OutcomeNoChange:
		return "ran but changed nothing"
	case OutcomeFailed:
		return "failed"
	case OutcomeNotInstalled:
		return "not installed"
	case OutcomeRefused:
		return "refused to start"
	case OutcomeAuth:
		return "authentication or configuration error"
	case OutcomeRateLimited:
		return "rate limited"
	case OutcomeTransient:
		return "overloaded or network error"
	case OutcomeCrashed:
		return "crashed"
	case OutcomeTimedOut:
		return "timed out"
	case OutcomeKilled:
		return "killed"
	case OutcomeMovedBranch:
		return "moved the branch"
	}
	return string(o)
}

// Fatal reports whether the outcome ends the whole run at once: the agent cannot
// work until a person installs, sets or fixes something, so neither a retry nor
// another iteration can help.
func (o AgentOutcome) Fatal() bool {
	return o == OutcomeNotInstalled || o == OutcomeRefused || o == OutcomeAuth
}

// Retryable reports whether a new attempt within the same iteration may succeed:
// only a recognised transient failure (overload, network).
func (o AgentOutcome) Retryable() bool { return o == OutcomeTransient }
