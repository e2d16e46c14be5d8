// Package decide is agentloop's decision engine: after each iteration it turns the
// evidence (agent result, gate findings, diff facts, reviewer verdict, budgets) and
// the run's history into a decision — proceed, retry, refine, expand, simplify,
// escalate or abort — with the feedback, strategy and reports that go with it.
// The stand-alone `agentloop decide` document is decided by the same engine
// ([Engine.DecideCheck]): its attempts are replayed as a loop's iterations,
// their test output read by [gate.Parse]. The
// documents it builds (decision document, escalation report) are types of package
// decision, which the loop carries without importing this package.
//
// The package is pure: no I/O, clock, randomness or goroutines, so the same input
// always gives the same decision and the engine can run inside a workflow.
//
// # Triggers
//
// Detectors turn evidence into [decision.Trigger]s (severity 0–1, fixable or not).
// The specification's eight triggers map onto what agentloop can observe:
//
//   - validation_failure: a required gate failed with build, crash, timeout, type
//     or lint findings, or failed without any parsed finding.
//   - requirement_unmet: failing test assertions (the tests state the requirement).
//   - incomplete_output: the agent did not finish (non-zero exit, timeout, idle
//     timeout, signal, could not start) and the CLI did not call it transient.
//   - explicit_feedback: the reviewer asked for changes or rejected; severity from
//     its worst finding (blocker 0.9, major 0.7, else 0.4).
//   - hallucination_detected: the agent printed its completion marker while
//     required checks fail (a false "done"), or errors name symbols, modules or
//     files the agent worked without (undefined: X, cannot find module, …) or the
//     reviewer tagged missing_context. It suggests expand.
//   - low_confidence: the reviewer's answer was unreadable, or its confidence < 0.5.
//   - quality_threshold: the reviewer approved with a score below AcceptScore, or
//     only optional gates fail.
//   - user_rejection: the reviewer, standing in for the user, rejected the change
//     outright (verdict reject, not request_changes).
//
// agentloop's own triggers: stuck (same failure fingerprint StuckRepeats times in
// a row, the baseline counted; no diff or the same diff twice; a return to an
// earlier tree hash), oscillation (A-B-A, A-B-A-B over fingerprints, the baseline
// counted; with disjoint failing sets it says "the fix for A breaks B" naming
// both: the agent going round, not a conflict of requirements), regression (a test that passed in the previous iteration fails, or
// quality more than 0.05 below the best), plateau (the best quality did not rise by
// Epsilon in Patience iterations), test_tampering, security, scope_creep,
// architecture, requirements_conflict (the reviewer's tag, or the words of its
// blocker or major finding: "SQL injection: …" with no tag is a security
// concern, "no security impact" is none), budget_soft / budget_cannot_afford / budget_hard, max_iterations,
// transient (gate infra, transient agent failure, flaky findings) and rate_limit.
//
// A flaky failure (failed, then passed when the gate ran again: the engine
// runs a failing gate once more, see [evidence.GateResult.Flaky]) is never a
// failure: the iteration's label and a proceed's message say "flaky: failed
// then passed: …", and the gates' feedback lists it as not counted.
//
// An iteration that weakened the tests (tests or assertions removed, skips
// added, test files deleted, the reviewer's test_tampering tag) has quality 0:
// it is a failure, never the best checkpoint, never progress, and an
// escalation does not offer to accept it. So is one whose tree has them
// weakened since the run's start ([evidence.DiffFacts.SinceStart]), though its
// own diff is clean: tests deleted in one iteration stay a failure in the next
// until restored, and escalate as repeated tampering, unless the task names
// them and says to remove them, or a person's guidance does; `resume
// --accept` still takes the tree. A test that failed at the run's start and
// passes after the run edited its test file counts as weakened too (its
// expected value or input changed, no assertion removed): tests that
// contradict the task, or each other, pass only that way, and the escalation
// asks whether the test or the code is wrong. A task that names the test and
// asks to change it, or a policy with allow_test_edits, lets it pass.
//
// # Priority order and strategies
//
// [Engine.Decide] applies a fixed priority order (see choose in priority.go):
// critical, escalate at once, proceed, transient retry, budget, max iterations,
// review rounds, auto-retry policy, stuck, plateau, regression, missing context,
// tampering and scope, refine depth, refine. Strategies change the next iteration
// through [state.Next] and [state.Decision.Rollback]. A strategy that already failed
// on the same triggers is not repeated (retry → refine, expand → simplify); refine
// and simplify are bounded by their own counters (StuckRepeats,
// MaxRefinePerAttempt, MaxSimplify); a stuck or oscillating run escalates after
// one simplification that made no progress, and so does a regression that
// came back after its rollback.
//
// # What the loop reads back
//
// The engine is the one authority on whether and why a run stops. Before each
// iteration [Engine.Preflight] judges the iteration limit and the budgets (hard,
// the predictive 1.2 × mean rule, 80%) on the one budget status the loop hands
// it, and tells the agent runner what is left; after it [Engine.Decide] judges
// the budgets again, the iteration limit, the failure threshold and escalation.
// A loop without gates or a reviewer is the plain loop: it goes on,
// counts an iteration a success when the agent exited 0, completes at its limit
// or when the agent printed its completion marker.
//
// Decision.Succeeded feeds the loop's consecutive-failure counter, and the
// decision's message starts with what the iteration showed: "failed: build
// broken", "failed: broke test:B", "no progress", "progress: 2 of 5 fixed".
// An iteration that broke something or made no progress (against the one
// before, or the baseline for the first) is a failure whatever the engine does
// next, retry, expand and simplify included: the threshold counts what the
// user sees. When a failure makes the count reach Limits.FailureThreshold, a
// decision that would go on aborts instead (rule failure_threshold); a
// decision that escalates on its own evidence (stuck, oscillation, regression
// again) stays an escalation, since that evidence is what the person needs. Decision.Best is set
// when the quality beats every earlier iteration; its Ref is left for the loop to
// fill with the iteration's checkpoint, which the decider does not see.
// Decision.Rollback names the best earlier checkpoint (from the records) on
// regression, simplify, escalate and abort, when it beats the present.
//
// After an escalation answered with guidance (State.Guidance set, the counter
// reset), the concern that escalated is acknowledged: the same security,
// architecture or conflict trigger does not escalate again at once. A secret in
// the diff always does.
//
// Iterations the infrastructure spoiled (a retry after a transient failure) are
// left out of the trend detectors (stuck, oscillation, plateau, regression).
//
// The specification's plateau rule (variance of the last 3 quality scores below
// 0.02) is reported in the assessment but does not fire alone: on a 0–1 scale it
// holds for steady progress (0.5, 0.6, 0.7 has variance 0.007). The plateau
// trigger needs the best score to stall for Patience iterations.
//
// # Fingerprints
//
// A finding's identity is the gate package's: [Failing] keys failures with
// [gate.Key], an iteration's fingerprint is [gate.Fingerprint] over those keys,
// and what changed since the previous iteration is [gate.Compare], which the
// feedback renders through [gate.Render]. The engine computes the feedback once,
// from the gate results it is given and the history in the state; the first
// iteration's comes from the baseline ([Engine.Brief]).
package decide
