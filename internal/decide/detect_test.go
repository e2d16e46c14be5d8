package decide

import (
	"time"

	"slices"
	"testing"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/state"
)

func TestTriggers(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	build := func(ev *evidence.Iteration) {
		ev.Gates[0].Passed = false
		ev.Gates[0].Findings = []evidence.Finding{{Kind: evidence.KindBuild, Tool: "go", File: "a.go", Message: "undefined: tokenize.Split"}}
	}
	preexisting := func(ev *evidence.Iteration) {
		ev.Gates[0].Passed = false
		ev.Gates[0].Preexisting = []evidence.Finding{{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestAdd", File: "calc_test.go", Line: 7, Message: "Add(2,3) = -1, want 5"}}
	}
	review := func(verdict string, score float64, tags ...string) func(*evidence.Iteration) {
		return func(ev *evidence.Iteration) {
			ev.Review = &evidence.Review{Verdict: verdict, Score: score, Tags: tags, Findings: []evidence.ReviewFinding{{Severity: "major", Message: "concern"}}}
		}
	}
	tests := []struct {
		name   string
		spec   state.Spec
		hist   []evidence.Iteration
		ev     evidence.Iteration
		budget limited
		want   string
		minSev float64
		absent bool
		base   []string // the baseline's failing tests
		// evidence, when set, is the trigger's evidence
		evidence string
	}{
		{name: "validation_failure on build errors", ev: with(iter(1), build), want: decision.TriggerValidationFailure},
		{name: "requirement_unmet on failing tests", ev: iter(1, "A"), want: decision.TriggerRequirementUnmet},
		{name: "an assertion failing since the baseline is no build failure", ev: with(iter(1), preexisting), want: decision.TriggerValidationFailure, absent: true},
		{name: "requirement_unmet on tests failing since the baseline", ev: with(iter(1), preexisting), want: decision.TriggerRequirementUnmet},
		{name: "no requirement_unmet when green", ev: iter(1), want: decision.TriggerRequirementUnmet, absent: true},
		{name: "incomplete_output on agent timeout", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Agent.TimedOut = true }), want: decision.TriggerIncompleteOutput},
		{name: "explicit_feedback on request_changes", spec: reviewed(), ev: with(iter(1), review("request_changes", 5)), want: decision.TriggerExplicitFeedback},
		{name: "hallucination on a false done", ev: with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Agent.Completed = true }), want: decision.TriggerHallucination},
		{name: "hallucination on missing symbols", ev: with(iter(1), build), want: decision.TriggerHallucination},
		{name: "low_confidence on unreadable review", spec: reviewed(), ev: with(iter(1), review("unknown", 0)), want: decision.TriggerLowConfidence},
		{name: "quality_threshold on a low approving score", spec: reviewed(), ev: with(iter(1), review("approve", 5)), want: decision.TriggerQualityThreshold},
		{name: "user_rejection on reject", spec: reviewed(), ev: with(iter(1), review("reject", 2)), want: decision.TriggerUserRejection},
		{name: "stuck on the same fingerprint twice", hist: []evidence.Iteration{iter(1, "A")}, ev: iter(2, "A"), want: decision.TriggerStuck},
		{name: "stuck when the first iteration leaves the baseline's failures", base: []string{"A"}, ev: iter(1, "A"), want: decision.TriggerStuck},
		{name: "not stuck after a change of failures", hist: []evidence.Iteration{iter(1, "A", "B")}, ev: iter(2, "A"), want: decision.TriggerStuck, absent: true},
		{name: "not stuck when the first iteration fixed some", base: []string{"A", "B"}, ev: iter(1, "A"), want: decision.TriggerStuck, absent: true},
		{name: "stuck on no diff twice", hist: []evidence.Iteration{with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Diff = evidence.DiffFacts{TreeHash: "t0"} })},
			ev: with(iter(2, "B"), func(ev *evidence.Iteration) { ev.Diff = evidence.DiffFacts{TreeHash: "t0"} }), want: decision.TriggerStuck},
		{name: "no diff facts without git is not stuck", hist: []evidence.Iteration{with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Diff = evidence.DiffFacts{} })},
			ev: with(iter(2, "B"), func(ev *evidence.Iteration) { ev.Diff = evidence.DiffFacts{} }), want: decision.TriggerStuck, absent: true},
		{name: "stuck on the same diff twice", hist: []evidence.Iteration{iter(1, "A")},
			ev: with(iter(2, "B"), func(ev *evidence.Iteration) { ev.Diff.Hash = "d1" }), want: decision.TriggerStuck},
		{name: "stuck on an earlier tree", hist: []evidence.Iteration{iter(1, "A"), iter(2, "B")},
			ev: with(iter(3, "C"), func(ev *evidence.Iteration) { ev.Diff.TreeHash = "t1" }), want: decision.TriggerStuck},
		{name: "oscillation A-B-A", hist: []evidence.Iteration{iter(1, "A"), iter(2, "B")}, ev: iter(3, "A"), want: decision.TriggerOscillation},
		{name: "oscillation A-B-A from the baseline", base: []string{"A"}, hist: []evidence.Iteration{iter(1, "B")}, ev: iter(2, "A"), want: decision.TriggerOscillation,
			evidence: "the fix for test:A breaks test:B, and the fix for test:B breaks test:A again (from the baseline to iteration 2)"},
		{name: "A-B-A-B disjoint is oscillation, not conflicting requirements", hist: []evidence.Iteration{iter(1, "A"), iter(2, "B"), iter(3, "A")}, ev: iter(4, "B"), want: decision.TriggerConflict, absent: true},
		{name: "A-B-A-B disjoint names both failures", hist: []evidence.Iteration{iter(1, "A"), iter(2, "B"), iter(3, "A")}, ev: iter(4, "B"), want: decision.TriggerOscillation, minSev: 0.85,
			evidence: "the fix for test:B breaks test:A, and the fix for test:A breaks test:B again (iterations 1-4)"},
		{name: "regression when a passing test fails", hist: []evidence.Iteration{iter(1, "A")}, ev: iter(2, "A", "B"), want: decision.TriggerRegression},
		{name: "no regression when failures shrink", hist: []evidence.Iteration{iter(1, "A", "B")}, ev: iter(2, "A"), want: decision.TriggerRegression, absent: true},
		{name: "plateau when the best does not improve", hist: []evidence.Iteration{iter(1, "A", "B"), iter(2, "A", "C")}, ev: iter(3, "A", "D"), want: decision.TriggerPlateau},
		{name: "no plateau on steady progress", hist: []evidence.Iteration{iter(1, "A", "B", "C"), iter(2, "A", "B")}, ev: iter(3, "A"), want: decision.TriggerPlateau, absent: true},
		{name: "tampering on skips", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.SkipsAdded = 1 }), want: decision.TriggerTestTampering, minSev: 0.9},
		{name: "tampering on asserts removed", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.AssertsRemoved = 2 }), want: decision.TriggerTestTampering, minSev: 0.9},
		{name: "test file edits are a note", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.TestFilesChanged = []string{"a_test.go"} }), want: decision.TriggerTestTampering},
		{name: "security on a secret", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.SecretsFound = 1 }), want: decision.TriggerSecurity, minSev: 1},
		{name: "moved branch on a switched branch", ev: with(iter(1), func(ev *evidence.Iteration) {
			ev.Records = evidence.RecordChanges{{Kind: evidence.RecordSwitched, What: "switched the branch from main to evil", Repaired: "back on main"}}
		}), want: decision.TriggerMovedBranch, minSev: 1, evidence: "switched the branch from main to evil (back on main)"},
		{name: "a commit the engine undid does not escalate", ev: with(iter(1), func(ev *evidence.Iteration) {
			ev.Records = evidence.RecordChanges{{Kind: evidence.RecordCommitted, What: "committed on main: 1 commit", Repaired: "main back at 1a2b"}}
		}), want: decision.TriggerMovedBranch, absent: true},
		{name: "security on a protected path", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.ProtectedTouched = []string{"auth/x.go"} }), want: decision.TriggerSecurity},
		{name: "security on the reviewer tag", spec: reviewed(), ev: with(iter(1), review("request_changes", 4, "security")), want: decision.TriggerSecurity},
		{name: "scope creep outside scope", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.OutsideScope = []string{"README.md"} }), want: decision.TriggerScopeCreep},
		{name: "scope creep on a huge diff", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.Added = 5000 }), want: decision.TriggerScopeCreep},
		{name: "architecture on new deps", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.NewDeps = []string{"github.com/x/y"} }), want: decision.TriggerArchitecture, minSev: 0.8},
		{name: "architecture note on exported API", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Diff.ExportedChanged = []string{"pkg.F"} }), want: decision.TriggerArchitecture},
		{name: "conflict on the reviewer tag", spec: reviewed(), ev: with(iter(1), review("request_changes", 4, "requirements_conflict")), want: decision.TriggerConflict},
		{name: "budget soft at 80%", ev: iter(3, "A"), budget: limited{Iterations: 3, Spent: evidence.Usage{CostUSD: 0.85, CostKnown: true}, MaxCostUSD: 10}, want: decision.TriggerBudgetAfford, absent: true},
		{name: "budget hard", ev: with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Agent.Usage = evidence.Usage{CostUSD: 2, CostKnown: true} }), budget: limited{Iterations: 1, Spent: evidence.Usage{CostUSD: 2, CostKnown: true}, MaxCostUSD: 2}, want: decision.TriggerBudgetHard},
		{name: "budget cannot afford", ev: with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Agent.Usage = evidence.Usage{CostUSD: 1.5, CostKnown: true} }), budget: limited{Iterations: 1, Spent: evidence.Usage{CostUSD: 1.5, CostKnown: true}, MaxCostUSD: 2}, want: decision.TriggerBudgetAfford},
		{name: "budget soft", ev: iter(1, "A"), budget: limited{Iterations: 8, MaxIterations: 10}, want: decision.TriggerBudgetSoft},
		{name: "unknown cost is not zero", ev: iter(1, "A"), budget: limited{Iterations: 1, Spent: evidence.Usage{CostUSD: 0}, MaxCostUSD: 2}, want: decision.TriggerBudgetHard, absent: true},
		{name: "max iterations with failures", ev: iter(3, "A"), budget: limited{Iterations: 3, MaxIterations: 3}, want: decision.TriggerMaxIterations},
		{name: "transient gate", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Gates[0].Infra = true; ev.Gates[0].Passed = false }), want: decision.TriggerTransient},
		{name: "transient agent", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Agent.Transient = true; ev.Agent.ExitCode = 1 }), want: decision.TriggerTransient},
		{name: "flaky test", ev: with(iter(1, "A"), func(ev *evidence.Iteration) { ev.Gates[0].Findings[0].Flaky = true }), want: decision.TriggerTransient},
		{name: "flaky test on a rerun", ev: with(iter(1), func(ev *evidence.Iteration) {
			ev.Gates[0].Flaky = []evidence.Finding{{Kind: evidence.KindTest, Tool: "go", ID: "T", Flaky: true}}
		}), want: decision.TriggerTransient},
		{name: "a weakened test is no regression", hist: []evidence.Iteration{iter(1, "A")}, ev: with(iter(2), func(ev *evidence.Iteration) { ev.Diff.SkipsAdded = 1 }), want: decision.TriggerRegression, absent: true},
		{name: "rate limit", ev: with(iter(1), func(ev *evidence.Iteration) { ev.Agent.RateLimited = true; ev.Agent.ExitCode = 1 }), want: decision.TriggerRateLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := tt.spec
			if !spec.HasGates {
				spec = gated()
			}
			st := pastFrom(baseline(tt.base), p, spec, tt.hist)
			d := New(p).Decide(tt.budget.input(st, spec, tt.ev))
			tr, ok := find(d.Triggers, tt.want)
			if ok && tt.evidence != "" && tr.Evidence != tt.evidence {
				t.Errorf("trigger %s evidence %q, want %q", tt.want, tr.Evidence, tt.evidence)
			}
			if tt.absent {
				if ok {
					t.Errorf("trigger %s fired: %+v", tt.want, tr)
				}
				return
			}
			if !ok || tr.Severity < tt.minSev {
				t.Errorf("want trigger %s (severity ≥ %.1f), got %v", tt.want, tt.minSev, d.Triggers)
			}
			if tr.Severity < 0 || tr.Severity > 1 || tr.Evidence == "" {
				t.Errorf("trigger %+v: severity out of 0–1 or no evidence", tr)
			}
		})
	}
}

// TestFailingUsesTheGateKey: the engine keys failures with the gate package's
// key (a finding without one gets it computed the same way), and fingerprints
// them with the gate package's fingerprint.
func TestFailingUsesTheGateKey(t *testing.T) {
	t.Parallel()
	a := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "TestX", File: "x_test.go", Line: 12, Message: "got 3, want 4 (0.01s)"}
	b := a
	b.Line, b.Message = 99, "got 5, want 6 (1.20s)"
	ev := iter(1)
	ev.Gates[0].Findings = []evidence.Finding{a, b, {Kind: evidence.KindTest, ID: "T", Key: "TEST|go|T#2"}}
	ev.Gates[0].Passed = false
	keys := Failing(ev)
	if want := []string{"TEST|go|T#2", gate.Key(a)}; !slices.Equal(keys, want) || gate.Key(a) != "TEST|go|TestX" {
		t.Errorf("Failing = %v, want %v", keys, want)
	}
	if fingerprint(keys) != gate.Fingerprint("", keys) || fingerprint(nil) != "" {
		t.Errorf("fingerprint is not the gate package's")
	}
	if keys := Failing(iter(1, "B", "A", "A")); !slices.Equal(keys, []string{"test:A", "test:B"}) {
		t.Errorf("Failing = %v", keys)
	}
}

func TestQuality(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ev   evidence.Iteration
		want float64
	}{
		{"green", iter(1), 1},
		{"one of ten failing", iter(1, "A"), 0.9},
		{"build fails", with(iter(1), func(ev *evidence.Iteration) {
			ev.Gates[0].Findings = []evidence.Finding{{Kind: evidence.KindBuild, Message: "syntax"}}
		}), 0},
		{"infra", with(iter(1), func(ev *evidence.Iteration) { ev.Gates[0].Infra = true }), 0},
		{"reviewer counts", with(iter(1), func(ev *evidence.Iteration) { ev.Review = &evidence.Review{Verdict: "approve", Score: 5} }), round3((0.6 + 0.125) / 0.85)},
		{"lint counts", with(iter(1), func(ev *evidence.Iteration) {
			ev.Gates = append(ev.Gates, evidence.GateResult{Name: "lint", Findings: []evidence.Finding{{Kind: evidence.KindLint}, {Kind: evidence.KindLint}}})
		}), round3((0.6 + 0.15*0.9) / 0.75)},
		{"a gate of lint and type findings only counts as lint, whatever its name", with(iter(1), func(ev *evidence.Iteration) {
			ev.Gates = append(ev.Gates, evidence.GateResult{Name: "check", Findings: []evidence.Finding{{Kind: evidence.KindLint}, {Kind: evidence.KindType}}})
		}), round3((0.6 + 0.15*0.9) / 0.75)},
		{"gates without counted tests: the share that passed", evidence.Iteration{Gates: []evidence.GateResult{
			{Name: "build", Required: true, Passed: true}, {Name: "e2e", Passed: false}, {Name: "smoke", Passed: true}, {Name: "docs", Passed: true},
		}}, 0.75},
		{"a gate failed without a counted test failing", with(iter(1), func(ev *evidence.Iteration) {
			ev.Gates = append(ev.Gates, evidence.GateResult{Name: "smoke", Passed: false})
		}), 0.9},
		{"plain agent ok", evidence.Iteration{}, 1},
		{"plain agent failed", evidence.Iteration{Agent: evidence.AgentResult{ExitCode: 1}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Quality(tt.ev); got != tt.want {
				t.Errorf("Quality() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestThresholdBoundaries pins the plateau and regression thresholds where a
// comparison turned the other way, or a margin ten times too wide, would change
// the decision. Qualities are binary fractions so the sums are exact.
func TestThresholdBoundaries(t *testing.T) {
	t.Parallel()
	counts := func(passed, failed int) func(*evidence.Iteration) {
		return func(ev *evidence.Iteration) { ev.Gates[0].Tests = evidence.TestCounts{Passed: passed, Failed: failed} }
	}
	p := DefaultPolicy()
	p.Patience, p.Epsilon = 2, 0.125
	tests := []struct {
		name   string
		hist   []evidence.Iteration
		ev     evidence.Iteration
		want   string
		absent bool
	}{
		// qualities 0.75, 0.75, 0.875: the best rose by exactly epsilon, which counts
		{name: "no plateau when the best rises by exactly epsilon", want: decision.TriggerPlateau, absent: true,
			hist: []evidence.Iteration{with(iter(1, "A"), counts(3, 1)), with(iter(2, "B"), counts(3, 1))},
			ev:   with(iter(3, "C"), counts(7, 1))},
		// qualities 0.75, 0.75, 0.813: less than epsilon
		{name: "plateau when the best rises by less than epsilon", want: decision.TriggerPlateau,
			hist: []evidence.Iteration{with(iter(1, "A"), counts(3, 1)), with(iter(2, "B"), counts(3, 1))},
			ev:   with(iter(3, "C"), counts(13, 3))},
		// qualities 0.9 then 0.8, the same test failing: a fall of 0.1
		{name: "regression when quality falls well below the best", want: decision.TriggerRegression,
			hist: []evidence.Iteration{with(iter(1, "A"), counts(9, 1))},
			ev:   with(iter(2, "A"), counts(4, 1))},
		// qualities 0.9 then 0.875: a fall of 0.025 is noise
		{name: "no regression on a small fall", want: decision.TriggerRegression, absent: true,
			hist: []evidence.Iteration{with(iter(1, "A"), counts(9, 1))},
			ev:   with(iter(2, "A"), counts(7, 1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := gated()
			d := New(p).Decide(state.DecideInput{State: past(p, spec, tt.hist), Spec: &spec, Evidence: tt.ev,
				Budget: done(tt.ev.N)})
			tr, ok := find(d.Triggers, tt.want)
			if ok == tt.absent {
				t.Errorf("trigger %s fired = %v (%+v), want %v; all: %v", tt.want, ok, tr, !tt.absent, d.Triggers)
			}
		})
	}
}

// The first expansion of the context also raises the iteration timeout by half;
// a later one keeps the raised timeout and does not raise it again.
func TestExpandRaisesTheTimeoutOnce(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	spec := gated()
	spec.Limits.IterationTimeout = 10 * time.Minute
	undefined := func(sym string) func(*evidence.Iteration) {
		return func(ev *evidence.Iteration) {
			ev.Gates[0].Passed = false
			ev.Gates[0].Findings = []evidence.Finding{{Kind: evidence.KindBuild, Tool: "go", File: "a.go", Message: "undefined: " + sym}}
		}
	}
	first := with(iter(1), undefined("tokenize.Split"))
	st := past(p, spec, nil)
	d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: first, Budget: done(1)})
	if d.Action != state.ActionExpand || d.Next.Timeout.Duration() != 15*time.Minute {
		t.Fatalf("first: %s with next timeout %s; want expand raising 10m to 15m", d.Action, d.Next.Timeout.Duration())
	}
	second := with(iter(2), undefined("tokenize.Join"))
	d = New(p).Decide(state.DecideInput{State: past(p, spec, []evidence.Iteration{first}), Spec: &spec, Evidence: second, Budget: done(2)})
	if d.Action != state.ActionExpand || d.Next.Timeout.Duration() != 15*time.Minute {
		t.Errorf("second: %s with next timeout %s; want expand keeping 15m", d.Action, d.Next.Timeout.Duration())
	}
}

// The feedback's priority follows the most severe trigger: high from 0.7,
// medium from 0.4, low below.
func TestFeedbackPriority(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sevs []float64
		want string
	}{
		{nil, "low"},
		{[]float64{0.39}, "low"},
		{[]float64{0.4}, "medium"},
		{[]float64{0.69, 0.2}, "medium"},
		{[]float64{0.2, 0.7}, "high"},
		{[]float64{1}, "high"},
	}
	for _, tt := range tests {
		var ts []decision.Trigger
		for _, s := range tt.sevs {
			ts = append(ts, decision.Trigger{Severity: s})
		}
		if got := priority(ts); got != tt.want {
			t.Errorf("priority of severities %v = %s, want %s", tt.sevs, got, tt.want)
		}
	}
}
