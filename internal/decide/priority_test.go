package decide

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

func TestPriorityRules(t *testing.T) {
	t.Parallel()
	type tc struct {
		name     string
		policy   func(*Policy)
		spec     state.Spec
		hist     []evidence.Iteration
		state    func(*state.State)
		base     []string // the baseline's failing tests, when there was a baseline
		ev       evidence.Iteration
		budget   limited
		action   state.Action
		strategy string
		rule     string
	}
	reviewWith := func(verdict string, score float64, tags ...string) func(*evidence.Iteration) {
		return func(ev *evidence.Iteration) {
			ev.Review = &evidence.Review{Verdict: verdict, Score: score, Tags: tags, Findings: []evidence.ReviewFinding{{Severity: "major", Message: "do it differently"}}}
		}
	}
	removedSinceStart := func(ev *evidence.Iteration) {
		ev.Diff = evidence.DiffFacts{TreeHash: ev.Diff.TreeHash, SinceStart: &evidence.DiffFacts{
			Files: []string{"a_test.go"}, Deleted: 12, TestFilesChanged: []string{"a_test.go"}, TestsRemoved: []string{"TestA", "TestB"}, AssertsRemoved: 2,
		}}
	}
	missing := func(ev *evidence.Iteration) {
		ev.Gates[0].Passed = false
		ev.Gates[0].Findings = []evidence.Finding{{Kind: evidence.KindBuild, Tool: "go", File: "a.go", Message: "undefined: lib.Parse"}}
	}
	tests := []tc{
		{name: "secret is critical even when green", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.SecretsFound = 1 }), action: state.ActionEscalate, rule: RuleCritical},
		{name: "a moved branch escalates even when green", ev: with(iter(1), func(ev *evidence.Iteration) {
			ev.Records = evidence.RecordChanges{{Kind: evidence.RecordRefDeleted, What: "deleted refs/agentloop/b/r/iter-1", Repaired: "restored"}}
		}), action: state.ActionEscalate, rule: RuleCritical},
		{name: "a moved branch escalates whatever the policy lists", policy: func(p *Policy) { p.EscalateOn = []string{} }, ev: with(iter(1, "A"), func(ev *evidence.Iteration) {
			ev.Records = evidence.RecordChanges{{Kind: evidence.RecordReset, What: "reset main back 1 commit", Repaired: "main back at 1a2b"}}
		}), action: state.ActionEscalate, rule: RuleCritical},
		{name: "an undone commit proceeds when green", ev: with(iter(1), func(ev *evidence.Iteration) {
			ev.Records = evidence.RecordChanges{{Kind: evidence.RecordCommitted, What: "committed on main: 1 commit", Repaired: "main back at 1a2b"}}
		}), action: state.ActionProceed, rule: RuleProceed},
		{name: "hard budget aborts", ev: with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Agent.Usage = evidence.Usage{CostUSD: 5, CostKnown: true} }), budget: limited{Iterations: 1, Spent: evidence.Usage{CostUSD: 5, CostKnown: true}, MaxCostUSD: 5}, action: state.ActionAbort, rule: RuleCritical},
		{name: "protected path escalates over proceed", spec: reviewed(), ev: with(with(iter(1), reviewWith("approve", 9)), func(ev *evidence.Iteration) { ev.Diff.ProtectedTouched = []string{"auth/a.go"} }), action: state.ActionEscalate, rule: RuleImmediate},
		{name: "security not escalated when the policy says so", policy: func(p *Policy) { p.EscalateOn = []string{} }, ev: with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Diff.ProtectedTouched = []string{"auth/a.go"} }), action: state.ActionRefine, rule: RuleRefine},
		{name: "new dependency escalates", ev: with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Diff.NewDeps = []string{"x"} }), action: state.ActionEscalate, rule: RuleImmediate},
		{name: "exported API change alone does not escalate", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.ExportedChanged = []string{"F"} }), action: state.ActionProceed, rule: RuleProceed},
		{name: "conflict tag escalates bypassing review rounds", spec: reviewed(), ev: with(iter(1), reviewWith("request_changes", 4, "requirements_conflict")), action: state.ActionEscalate, rule: RuleImmediate},
		{name: "repeated scope creep escalates", hist: []evidence.Iteration{with(iter(1), func(ev *evidence.Iteration) { ev.Diff.OutsideScope = []string{"x"} })},
			ev: with(iter(2), func(ev *evidence.Iteration) { ev.Diff.OutsideScope = []string{"y"} }), action: state.ActionEscalate, rule: RuleImmediate},
		{name: "repeated tampering escalates", hist: []evidence.Iteration{with(iter(1), func(ev *evidence.Iteration) { ev.Diff.SkipsAdded = 1 })},
			ev: with(iter(2), func(ev *evidence.Iteration) { ev.Diff.AssertsRemoved = 1 }), action: state.ActionEscalate, rule: RuleImmediate},
		{name: "green proceeds", ev: iter(1), action: state.ActionProceed, rule: RuleProceed},
		{name: "green with approval proceeds", spec: reviewed(), ev: with(iter(1), reviewWith("approve", 8)), action: state.ActionProceed, rule: RuleProceed},
		{name: "approval below accept score does not proceed", spec: reviewed(), ev: with(iter(1), reviewWith("approve", 5)), action: state.ActionRefine, rule: RuleRefine},
		{name: "unreadable review on a green change escalates", spec: reviewed(), ev: with(iter(1), reviewWith("unknown", 0)), action: state.ActionEscalate, rule: RuleNoVerdict},
		{name: "transient retries", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Gates[0].Infra = true; ev.Gates[0].Passed = false }), action: state.ActionRetry, strategy: "retry", rule: RuleTransient},
		{name: "rate limit retries", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Agent.RateLimited = true; ev.Agent.ExitCode = 1 }), action: state.ActionRetry, rule: RuleTransient},
		{name: "same triggers after a retry refine", hist: []evidence.Iteration{with(iter(1), func(ev *evidence.Iteration) { ev.Agent.Transient = true })},
			ev: with(iter(2), func(ev *evidence.Iteration) { ev.Agent.Transient = true }), action: state.ActionRefine, strategy: "refine", rule: RuleTransient},
		{name: "transient retries are bounded", hist: []evidence.Iteration{
			with(iter(1), func(ev *evidence.Iteration) {
				ev.Gates[0].Infra = true
				ev.Gates[0].Passed = false
				ev.Gates[0].InfraReason = "a"
			}),
			with(iter(2), func(ev *evidence.Iteration) { ev.Agent.RateLimited = true })},
			ev: with(iter(3), func(ev *evidence.Iteration) { ev.Gates[0].Infra = true; ev.Gates[0].Passed = false }), action: state.ActionRefine, rule: RuleRefine},
		{name: "cannot afford aborts", ev: with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Agent.Usage = evidence.Usage{CostUSD: 4, CostKnown: true} }), budget: limited{Iterations: 1, Spent: evidence.Usage{CostUSD: 4, CostKnown: true}, MaxCostUSD: 5}, action: state.ActionAbort, rule: RuleBudget},
		{name: "max iterations escalates", ev: iter(3, "A"), budget: limited{Iterations: 3, MaxIterations: 3}, action: state.ActionEscalate, rule: RuleMaxIter},
		{name: "review rounds escalate", spec: reviewed(), hist: []evidence.Iteration{with(iter(1), reviewWith("request_changes", 5)), with(iter(2), reviewWith("request_changes", 5))},
			ev: with(iter(3), reviewWith("request_changes", 6)), action: state.ActionEscalate, rule: RuleReviewRounds},
		{name: "auto retry on test fail off", policy: func(p *Policy) { p.AutoRetryOnTestFail = false }, ev: iter(1, "A"), action: state.ActionEscalate, rule: RuleNoAutoRetry},
		{name: "auto retry on review reject off", policy: func(p *Policy) { p.AutoRetryOnReviewReject = false }, spec: reviewed(), ev: with(iter(1), reviewWith("request_changes", 5)), action: state.ActionEscalate, rule: RuleNoAutoRetry},
		{name: "a stand-in without progress waits for the reset near", base: []string{"A"}, ev: with(iter(1, "A"), standIn(10*time.Minute)), action: state.ActionRefine, strategy: "refine", rule: RuleAwaitReset},
		{name: "a stand-in without progress waits again after a second limit", hist: []evidence.Iteration{with(iter(1, "A"), standIn(time.Minute)), iter(2, "A")},
			ev: with(iter(3, "A"), standIn(time.Minute)), action: state.ActionRefine, strategy: "refine", rule: RuleAwaitReset},
		{name: "a stand-in is judged when the reset is far", base: []string{"A"}, ev: with(iter(1, "A"), standIn(AwaitResetWithin+time.Minute)), action: state.ActionSimplify, strategy: "simplify", rule: RuleStuck},
		{name: "a stand-in that progresses goes on", hist: []evidence.Iteration{iter(1, "A", "B")}, ev: with(iter(2, "A"), standIn(time.Minute)), action: state.ActionRefine, strategy: "refine", rule: RuleRefine},
		{name: "a stand-in at max iterations escalates", ev: with(iter(3, "A"), standIn(time.Minute)), budget: limited{Iterations: 3, MaxIterations: 3}, action: state.ActionEscalate, rule: RuleMaxIter},
		{name: "stuck simplifies", hist: []evidence.Iteration{iter(1, "A")}, ev: iter(2, "A"), action: state.ActionSimplify, strategy: "simplify", rule: RuleStuck},
		{name: "stuck after one simplification escalates", hist: []evidence.Iteration{iter(1, "A"), iter(2, "A")}, ev: iter(3, "A"), action: state.ActionEscalate, rule: RuleStuck},
		{name: "the first iteration that leaves the baseline as it was is stuck", base: []string{"A"}, ev: iter(1, "A"), action: state.ActionSimplify, strategy: "simplify", rule: RuleStuck},
		{name: "stuck from the baseline escalates after one simplification", base: []string{"A"}, hist: []evidence.Iteration{iter(1, "A")}, ev: iter(2, "A"), action: state.ActionEscalate, rule: RuleStuck},
		{name: "stuck at the failure threshold escalates with the evidence", spec: thresholded(2), base: []string{"A"}, hist: []evidence.Iteration{iter(1, "A")}, ev: iter(2, "A"), action: state.ActionEscalate, rule: RuleStuck},
		{name: "the failure threshold hands over work that changed code", spec: thresholded(2), hist: []evidence.Iteration{iter(1, "A", "B")}, ev: iter(2, "A", "C"), action: state.ActionEscalate, rule: RuleThreshold},
		{name: "the failure threshold aborts a run that changed nothing", spec: thresholded(2),
			hist: []evidence.Iteration{with(iter(1, "A", "B"), unchanged)}, ev: with(iter(2, "A", "C"), unchanged), action: state.ActionAbort, rule: RuleThreshold},
		{name: "churn escalates with the chain", base: []string{"A"}, hist: []evidence.Iteration{iter(1, "B")}, ev: iter(2, "C"), action: state.ActionEscalate, rule: RuleChurn},
		{name: "oscillation from the baseline simplifies", base: []string{"A"}, hist: []evidence.Iteration{iter(1, "B")}, ev: iter(2, "A"), action: state.ActionSimplify, strategy: "simplify", rule: RuleStuck},
		{name: "oscillation after a simplification escalates as oscillation", base: []string{"A"}, hist: []evidence.Iteration{iter(1, "B"), iter(2, "A")}, ev: iter(3, "B"), action: state.ActionEscalate, rule: RuleStuck},
		{name: "a regression that comes back after the rollback simplifies", policy: func(p *Policy) { p.Patience = 4 }, hist: []evidence.Iteration{iter(1, "A", "B"), iter(2, "B"), iter(3, "B", "C", "D")}, ev: iter(4, "B", "C", "E"), action: state.ActionSimplify, strategy: "simplify", rule: RuleRegression},
		{name: "plateau simplifies", hist: []evidence.Iteration{iter(1, "A", "B"), iter(2, "A", "C")}, ev: iter(3, "A", "D"), action: state.ActionSimplify, rule: RulePlateau},
		{name: "plateau with missing context expands", hist: []evidence.Iteration{with(iter(1, "A"), missing), with(iter(2, "B"), missing)},
			ev: with(iter(3, "C"), func(ev *evidence.Iteration) {
				missing(ev)
				ev.Gates[0].Findings[0].Message = "undefined: lib.Other"
			}), action: state.ActionExpand, rule: RulePlateau},
		{name: "expand that failed on the same triggers simplifies", policy: func(p *Policy) { p.StuckRepeats = 3 }, hist: []evidence.Iteration{with(iter(1), missing)},
			ev: with(iter(2), missing), action: state.ActionSimplify, rule: RuleMissing},
		{name: "regression refines from the best", hist: []evidence.Iteration{iter(1, "A", "B"), iter(2, "A")}, ev: iter(3, "A", "C", "D"), action: state.ActionRefine, rule: RuleRegression},
		{name: "missing context expands", ev: with(iter(1), missing), action: state.ActionExpand, strategy: "expand", rule: RuleMissing},
		{name: "no expand past 80% of a budget", ev: with(iter(8), missing), budget: limited{Iterations: 8, MaxIterations: 10}, action: state.ActionRefine, rule: RuleRefine},
		{name: "expansions are bounded", policy: func(p *Policy) { p.MaxExpand = 0 }, ev: with(iter(1), missing), action: state.ActionRefine, rule: RuleRefine},
		{name: "tests removed since the run's start do not proceed on a green iteration that changed nothing", ev: with(iter(2), removedSinceStart), action: state.ActionRefine, rule: RuleTamper},
		{name: "tests removed since the run's start escalate when they stay removed", hist: []evidence.Iteration{with(iter(1), func(ev *evidence.Iteration) {
			ev.Diff.TestsRemoved, ev.Diff.AssertsRemoved = []string{"TestA", "TestB"}, 2
		})}, ev: with(iter(2), removedSinceStart), action: state.ActionEscalate, rule: RuleImmediate},
		{name: "tests the task asks to remove proceed", spec: state.Spec{HasGates: true, Task: "Remove TestA and TestB: they test the old parser"}, ev: with(iter(2), removedSinceStart), action: state.ActionProceed, rule: RuleProceed},
		{name: "tests a person's guidance asks to remove proceed", state: func(st *state.State) {
			st.Handoffs = append(st.Handoffs, state.Handoff{Kind: state.HandoffGuidance, Text: "The tests are wrong: delete TestA and TestB"})
		}, ev: with(iter(2), removedSinceStart), action: state.ActionProceed, rule: RuleProceed},
		{name: "tests the context asks to remove proceed", spec: state.Spec{HasGates: true, Told: "# Context\n\nRemove TestA and TestB: they test the old parser"}, ev: with(iter(2), removedSinceStart), action: state.ActionProceed, rule: RuleProceed},
		{name: "tests the task does not name stay", spec: state.Spec{HasGates: true, Task: "Remove TestA: it tests the old parser"}, ev: with(iter(2), removedSinceStart), action: state.ActionRefine, rule: RuleTamper},
		{name: "first tampering refines", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.SkipsAdded = 1 }), action: state.ActionRefine, rule: RuleTamper},
		{name: "first scope creep refines", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.OutsideScope = []string{"x"} }), action: state.ActionRefine, rule: RuleScope},
		{name: "refine depth starts a fresh attempt", policy: func(p *Policy) { p.StuckRepeats = 3 }, hist: []evidence.Iteration{iter(1, "A", "B", "C", "D"), iter(2, "A", "B", "C"), iter(3, "A", "B")},
			ev: iter(4, "A", "B"), action: state.ActionSimplify, rule: RuleDepth},
		{name: "refine depth at max attempts escalates", policy: func(p *Policy) { p.StuckRepeats = 3 }, hist: []evidence.Iteration{iter(1, "A", "B", "C", "D"), iter(2, "A", "B", "C"), iter(3, "A", "B")},
			state: func(st *state.State) { st.Next.Attempt = 3 }, ev: iter(4, "A", "B"), action: state.ActionEscalate, rule: RuleDepth},
		{name: "refine by default", ev: iter(1, "A"), action: state.ActionRefine, strategy: "refine", rule: RuleRefine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := DefaultPolicy()
			if tt.policy != nil {
				tt.policy(&p)
			}
			spec := tt.spec
			if !spec.HasGates {
				spec = gated()
			}
			st := pastFrom(baseline(tt.base), p, spec, tt.hist)
			if tt.state != nil {
				tt.state(st)
			}
			d := New(p).Decide(tt.budget.input(st, spec, tt.ev))
			if d.Action != tt.action || rule(d) != tt.rule || (tt.strategy != "" && d.Strategy != tt.strategy) {
				t.Errorf("got %s/%s rule %s (%s), want %s/%s rule %s; triggers %v",
					d.Action, d.Strategy, rule(d), d.Message, tt.action, tt.strategy, tt.rule, triggerIDs(d.Triggers))
			}
			// A budget's abort names the limits that stopped the run (the inbox
			// offers to raise them); no other decision names any.
			if budgetStop := tt.rule == RuleBudget || tt.rule == RuleCritical && d.Action == state.ActionAbort; budgetStop != slices.Equal(d.Budgets, []budget.Resource{budget.CostUSD}) {
				t.Errorf("budgets that stop the run %v, want the cost budget: %v", d.Budgets, budgetStop)
			}
			if await := tt.ev.Agent.StandInUntil; tt.rule == RuleAwaitReset && (!d.Next.AwaitReset.Equal(await) || d.Next.Agent != "") {
				t.Errorf("next %+v, want the configured agent after the reset at %s", d.Next, await)
			} else if tt.rule != RuleAwaitReset && !d.Next.AwaitReset.IsZero() {
				t.Errorf("next %+v waits for a reset", d.Next)
			}
			if d.Action == state.ActionEscalate {
				if d.Escalation == nil || d.Escalation.Question == "" || len(d.Escalation.Options) < 2 {
					t.Errorf("escalation without one question and options: %+v", d.Escalation)
				}
				if d.Escalation.Report == nil {
					t.Errorf("escalation without a report")
				}
			}
			if d.Action.Continues() && !strings.Contains(d.Feedback, ruleTests) && d.Action != state.ActionRetry {
				t.Errorf("feedback lacks the standing rules:\n%s", d.Feedback)
			}
		})
	}
}

// standIn makes an iteration one a fallback ran for codex, at its usage limit
// until resetIn after the iteration's end.
func standIn(resetIn time.Duration) func(*evidence.Iteration) {
	return func(ev *evidence.Iteration) {
		ev.Agent.Agent, ev.Agent.StandInFor, ev.Agent.StandInUntil = "claude", "codex", ev.Finished.Add(resetIn)
	}
}
