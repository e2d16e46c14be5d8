package decide

import (
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// choice is the outcome of the priority order: what to do, how, and why.
type choice struct {
	action   state.Action
	strategy string
	rule     string // the rule of the priority order that fired
	reason   string // one line for people
	class    string // escalation class, when escalating
	// await is the configured agent's usage limit reset the next iteration
	// waits for (RuleAwaitReset).
	await time.Time
	// budgets are the run's limits that stop it (an abort on a budget).
	budgets []budget.Resource
}

// AwaitResetWithin is how near the configured agent's usage limit reset must
// be, at the end of an iteration its fallback ran without progress, for the
// loop to wait for it (RuleAwaitReset) rather than judge the fallback's
// iterations.
const AwaitResetWithin = 30 * time.Minute

// Rules of the priority order, in order; each is named in the decision
// document. A rule that fires on one trigger (or tag) has its name.
const (
	RuleCritical     = "critical"
	RuleImmediate    = "escalate_at_once"
	RuleProceed      = "proceed"
	RuleNoVerdict    = decision.ClassNoVerdict
	RuleTransient    = "transient_retry"
	RuleBudget       = "budget"
	RuleMaxIter      = decision.TriggerMaxIterations
	RuleAwaitReset   = "await_reset"
	RuleReviewRounds = "review_rounds"
	RuleNoAutoRetry  = "auto_retry_off"
	RuleStuck        = decision.TriggerStuck
	RuleChurn        = decision.TriggerChurn
	RuleRegression   = decision.TriggerRegression
	RulePlateau      = decision.TriggerPlateau
	RuleMissing      = decision.TagMissingContext
	RuleTamper       = decision.TriggerTestTampering
	RuleScope        = decision.TriggerScopeCreep
	RuleDepth        = "refine_depth"
	RuleRefine       = "refine"
	RuleThreshold    = "failure_threshold"
)

// choose applies the fixed priority order:
//
//  1. critical: secrets in the diff and an agent that moved the branch or
//     agentloop's refs escalate; an exhausted budget aborts
//  2. escalate at once (bypassing the review-round limit) on security,
//     architectural impact, conflicting requirements, repeated scope creep and
//     repeated serious test tampering, for the classes in Policy.EscalateOn
//  3. proceed when the goal is met and nothing blocks it
//     (and escalate when the gates pass but the reviewer gave no readable
//     verdict: nobody can approve the change but a person)
//  4. retry the same prompt on transient failures, MaxTransient times in a row
//  5. abort when the budget cannot afford another iteration
//  6. escalate at max iterations with failures left; when a fallback agent
//     stood in for the configured one (at its usage limit) and made no
//     progress, and the limit resets within AwaitResetWithin, wait for the
//     reset and go on with the configured agent: a stand-in's iterations are
//     weak evidence that the run is stuck
//  7. escalate after MaxReviewRounds rejections by the reviewer
//  8. escalate when the policy turns off automatic retries for this failure
//  9. churn (the failure count flat, the failing set changing every
//     iteration, the baseline counted) escalates with the chain; stuck or
//     oscillating: simplify, or escalate when a simplification already
//     stayed stuck (an oscillation as what it is: the fix for A breaks B)
//  10. plateau: expand when errors name missing context, else simplify (before
//     regression, unlike a strict priority order: on a plateau the swaps of failing
//     tests that look like regressions are noise, and simplify rolls back too)
//  11. regression: refine from the best checkpoint; a regression that comes back
//     after that rollback simplifies, and after a simplification escalates
//  12. missing context: expand, at most MaxExpand times, never past 80% of a budget
//  13. first serious test tampering or first scope creep: refine with the rule
//  14. MaxRefinePerAttempt refines in a row and the last made no progress: a
//     fresh attempt, or escalate when MaxAttempts are used (a refine that still
//     fixes things is still paying, so progress is not cut off)
//  15. otherwise refine
//
// The failure threshold then stops a run that would go on: it escalates with
// the pattern and one question when the segment changed code
// (decision.ClassThreshold), and aborts when it did not.
//
// A strategy that already failed on the same triggers (same triggers and failure
// fingerprint after it) is not chosen again: retry moves to refine, expand to
// simplify. Refine and simplify are bounded by their own counters instead.
func (e *Engine) choose(f *facts, ts []decision.Trigger) choice {
	p := f.p
	if c, ok := e.immediate(f, ts); ok {
		return c
	}
	blocked := has(ts, decision.TriggerTestTampering, 0.9) || has(ts, decision.TriggerScopeCreep, 0.1) ||
		!f.acked[decision.TriggerSecurity] && has(ts, decision.TriggerSecurity, 0.1) ||
		!f.acked[decision.TriggerArchitecture] && has(ts, decision.TriggerArchitecture, 0.7) || !f.acked[decision.TriggerConflict] && has(ts, decision.TriggerConflict, 0.1)
	if f.cur.Succeeded && !blocked {
		return choice{action: state.ActionProceed, rule: RuleProceed, reason: proceedReason(f)}
	}
	if r := f.ev.Review; f.in.Spec.HasReviewer && (r == nil || r.Verdict == evidence.VerdictUnknown || r.Verdict == "") &&
		green(f.ev, &state.Spec{}, p) && !blocked {
		return choice{action: state.ActionEscalate, rule: RuleNoVerdict, class: decision.ClassNoVerdict,
			reason: "the gates pass but the reviewer gave no readable verdict"}
	}
	if onlyTransient(f.ev, ts) && trailing(f.past, "retry") < p.MaxTransient {
		return e.ladder(f, choice{action: state.ActionRetry, strategy: "retry", rule: RuleTransient, reason: "transient failure: same prompt again"})
	}
	if t, ok := find(ts, decision.TriggerBudgetAfford); ok {
		return choice{action: state.ActionAbort, rule: RuleBudget, reason: "budget cannot afford another iteration: " + t.Evidence,
			budgets: stopping(judgeBudget(f.in.Spec.Limits, f.in.Budget))}
	}
	if t, ok := find(ts, decision.TriggerMaxIterations); ok {
		why := "max iterations reached: " + t.Evidence
		if s, ok := steady(f); ok {
			why += "; steady progress: " + s.String()
		}
		return choice{action: state.ActionEscalate, rule: RuleMaxIter, reason: why, class: decision.TriggerMaxIterations}
	}
	if a := f.ev.Agent; !a.StandInUntil.IsZero() && !progressed(f) && a.StandInUntil.Sub(f.ev.Finished) <= AwaitResetWithin {
		return choice{action: state.ActionRefine, strategy: "refine", rule: RuleAwaitReset, await: a.StandInUntil,
			reason: fmt.Sprintf("the fallback agent %s made no progress while %s is at its usage limit; wait for its reset (%s after this iteration) and go on with %s",
				a.Agent, a.StandInFor, a.StandInUntil.Sub(f.ev.Finished).Round(time.Second), a.StandInFor)}
	}
	if n := reviewRounds(f); f.in.Spec.HasReviewer && n >= p.MaxReviewRounds {
		return choice{action: state.ActionEscalate, rule: RuleReviewRounds, class: decision.ClassReview,
			reason: fmt.Sprintf("the reviewer did not approve in %d rounds", n)}
	}
	if has(ts, decision.TriggerRequirementUnmet, 0) && !p.AutoRetryOnTestFail {
		return choice{action: state.ActionEscalate, rule: RuleNoAutoRetry, reason: "tests fail and auto_retry_on_test_fail is off", class: "policy"}
	}
	if (has(ts, decision.TriggerExplicitFeedback, 0) || has(ts, decision.TriggerUserRejection, 0)) && !p.AutoRetryOnReviewReject {
		return choice{action: state.ActionEscalate, rule: RuleNoAutoRetry, reason: "the reviewer asked for changes and auto_retry_on_review_reject is off", class: "policy"}
	}
	if t, ok := find(ts, decision.TriggerChurn); ok && !has(ts, decision.TriggerOscillation, 0) {
		// Each iteration trades failures for as many others: another
		// iteration trades again. The person gets the chain.
		return choice{action: state.ActionEscalate, rule: RuleChurn, class: decision.TriggerChurn, reason: "churn: " + t.Evidence}
	}
	if t, ok := firstOf(ts, decision.TriggerOscillation, decision.TriggerStuck); ok {
		// One fresh attempt that stayed stuck is evidence enough: escalate.
		if n := simplifiesSinceBest(f); n >= 1 {
			if t.ID == decision.TriggerOscillation {
				return choice{action: state.ActionEscalate, rule: RuleStuck, class: decision.TriggerOscillation,
					reason: fmt.Sprintf("oscillation: %s; %s did not end it", t.Evidence, plural(n, "fresh attempt"))}
			}
			why := t.ID + ": " + t.Evidence
			if r, ok := find(ts, decision.TriggerRegression); ok && regressedBefore(f) {
				// Stuck on a regression that came back after its rollback: say so.
				why += "; regression again: " + r.Evidence
			}
			return choice{action: state.ActionEscalate, rule: RuleStuck, class: decision.TriggerStuck,
				reason: fmt.Sprintf("still stuck after %s: %s", plural(n, "simplification"), why)}
		}
		return e.simplify(f, RuleStuck, t.ID+": "+t.Evidence)
	}
	// Past 80% of a budget, no expand: it makes iterations longer and costlier.
	missing := has(ts, decision.TriggerHallucination, 0) && countStrategy(f.past, "expand") < p.MaxExpand && !has(ts, decision.TriggerBudgetSoft, 0)
	if t, ok := find(ts, decision.TriggerPlateau); ok {
		if missing {
			return e.ladder(f, choice{action: state.ActionExpand, strategy: "expand", rule: RulePlateau, reason: "plateau with missing context: " + t.Evidence})
		}
		return e.simplify(f, RulePlateau, "plateau: "+t.Evidence)
	}
	if t, ok := find(ts, decision.TriggerRegression); ok {
		if regressedBefore(f) {
			// It came back after the rollback: a fresh attempt, then a person.
			if n := simplifiesSinceBest(f); n >= 1 {
				return choice{action: state.ActionEscalate, rule: RuleRegression, class: decision.TriggerRegression,
					reason: fmt.Sprintf("regression again after %s: %s", plural(n, "simplification"), t.Evidence)}
			}
			return e.simplify(f, RuleRegression, "regression again after a rollback: "+t.Evidence)
		}
		return e.ladder(f, choice{action: state.ActionRefine, strategy: "refine", rule: RuleRegression, reason: "regression: " + t.Evidence})
	}
	if t, ok := find(ts, decision.TriggerHallucination); ok && missing {
		return e.ladder(f, choice{action: state.ActionExpand, strategy: "expand", rule: RuleMissing, reason: "add what the errors name: " + t.Evidence})
	}
	if t, ok := find(ts, decision.TriggerTestTampering); ok && t.Severity >= 0.9 {
		return choice{action: state.ActionRefine, strategy: "refine", rule: RuleTamper, reason: "tests were weakened; restore them: " + t.Evidence}
	}
	if t, ok := find(ts, decision.TriggerScopeCreep); ok {
		return choice{action: state.ActionRefine, strategy: "refine", rule: RuleScope, reason: "out of scope; revert what the task did not ask for: " + t.Evidence}
	}
	if trailing(f.past, "refine") >= p.MaxRefinePerAttempt && !progressed(f) {
		if attempt(f) < p.MaxAttempts {
			return e.simplify(f, RuleDepth, fmt.Sprintf("%d refines without success: a fresh attempt with the lessons", p.MaxRefinePerAttempt))
		}
		return choice{action: state.ActionEscalate, rule: RuleDepth, class: "attempts",
			reason: fmt.Sprintf("%d attempts of %d refines each did not succeed", p.MaxAttempts, p.MaxRefinePerAttempt)}
	}
	return e.ladder(f, choice{action: state.ActionRefine, strategy: "refine", rule: RuleRefine, reason: refineReason(f, ts)})
}

// immediate is rules 1 and 2.
func (e *Engine) immediate(f *facts, ts []decision.Trigger) (choice, bool) {
	p := f.p
	esc := func(class, reason string) (choice, bool) {
		return choice{action: state.ActionEscalate, rule: RuleImmediate, class: class, reason: reason}, true
	}
	if t, ok := find(ts, decision.TriggerSecurity); ok && t.Severity >= 1 {
		return choice{action: state.ActionEscalate, rule: RuleCritical, class: decision.TriggerSecurity, reason: "security: " + t.Evidence}, true
	}
	if t, ok := find(ts, decision.TriggerMovedBranch); ok {
		return choice{action: state.ActionEscalate, rule: RuleCritical, class: decision.TriggerMovedBranch, reason: "the agent moved the branch: " + t.Evidence}, true
	}
	if t, ok := find(ts, decision.TriggerBudgetHard); ok {
		return choice{action: state.ActionAbort, rule: RuleCritical, reason: t.Evidence, budgets: stopping(judgeBudget(f.in.Spec.Limits, f.in.Budget))}, true
	}
	if t, ok := find(ts, decision.TriggerSecurity); ok && p.escalates(decision.TriggerSecurity) && !f.acked[decision.TriggerSecurity] {
		return esc(decision.TriggerSecurity, "security: "+t.Evidence)
	}
	if t, ok := find(ts, decision.TriggerArchitecture); ok && t.Severity >= 0.7 && p.escalates(decision.TriggerArchitecture) && !f.acked[decision.TriggerArchitecture] {
		return esc(decision.TriggerArchitecture, "architectural impact: "+t.Evidence)
	}
	if t, ok := find(ts, decision.TriggerConflict); ok && p.escalates(decision.TriggerConflict) && !f.acked[decision.TriggerConflict] {
		return esc(decision.TriggerConflict, "conflicting requirements: "+t.Evidence)
	}
	if t, ok := find(ts, decision.TriggerScopeCreep); ok && p.escalates(decision.TriggerScopeCreep) && seenBefore(f, decision.TriggerScopeCreep) {
		return esc(decision.TriggerScopeCreep, "scope creep again: "+t.Evidence)
	}
	if t, ok := find(ts, decision.TriggerTestTampering); ok && t.Severity >= 0.9 && seenBefore(f, decision.TriggerTestTampering) {
		return esc(decision.TriggerTestTampering, "tests weakened again: "+t.Evidence)
	}
	return choice{}, false
}

// simplify starts a fresh attempt (from the best checkpoint, when the engine
// keeps checkpoints: rollbackRef), unless MaxSimplify simplifications since
// the last new best did not get the run unstuck.
func (e *Engine) simplify(f *facts, rule, reason string) choice {
	if n := simplifiesSinceBest(f); n >= f.p.MaxSimplify {
		return choice{action: state.ActionEscalate, rule: rule, class: decision.TriggerStuck,
			reason: fmt.Sprintf("still stuck after %d simplifications: %s", n, reason)}
	}
	return choice{action: state.ActionSimplify, strategy: "simplify", rule: rule, reason: reason}
}

// ladder moves a strategy that already failed on the same triggers one step up:
// retry → refine, expand → simplify.
func (e *Engine) ladder(f *facts, c choice) choice {
	failed := failedStrategies(f.all, f.cur.Triggers)
	switch {
	case c.strategy == "retry" && failed["retry"]:
		return choice{action: state.ActionRefine, strategy: "refine", rule: c.rule, reason: "same triggers after a retry: " + c.reason}
	case c.strategy == "expand" && failed["expand"]:
		return e.simplify(f, c.rule, "expanding did not help: "+c.reason)
	}
	return c
}
