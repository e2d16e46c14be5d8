package decide

import (
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"

	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/evidence"
)

func TestPlainLoop(t *testing.T) {
	t.Parallel()
	spec := state.Spec{Name: "plain"}
	e := New(DefaultPolicy())
	for _, tt := range []struct {
		exit int
		ok   bool
	}{{0, true}, {1, false}} {
		ev := evidence.Iteration{N: 1, Agent: evidence.AgentResult{ExitCode: tt.exit}}
		d := e.Decide(state.DecideInput{State: &state.State{}, Spec: &spec, Evidence: ev})
		if d.Action != state.ActionContinue || d.Succeeded != tt.ok || d.Feedback != "" {
			t.Errorf("exit %d: got %s succeeded=%v feedback=%q", tt.exit, d.Action, d.Succeeded, d.Feedback)
		}
	}
}

func TestDecideIsPure(t *testing.T) {
	t.Parallel()
	spec := gated()
	st := past(DefaultPolicy(), spec, []evidence.Iteration{iter(1, "A", "B"), iter(2, "A")})
	in := state.DecideInput{State: st, Spec: &spec, Evidence: iter(3, "A", "C"), Budget: done(3)}
	a, b := New(DefaultPolicy()).Decide(in), New(DefaultPolicy()).Decide(in)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two decisions on the same input differ:\n%s", diff)
	}
	if New(DefaultPolicy()).Decide(state.DecideInput{}).Action == "" {
		t.Errorf("empty input gives no action")
	}
}

func TestBestAndRollback(t *testing.T) {
	t.Parallel()
	spec := gated()
	p := DefaultPolicy()
	st := past(p, spec, []evidence.Iteration{iter(1, "A", "B"), iter(2, "A")})
	if st.Best == nil || st.Best.Iteration != 2 {
		t.Fatalf("best after an improving iteration = %+v, want iteration 2", st.Best)
	}
	d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: iter(3, "A", "C", "D"), Budget: done(3)})
	if d.Best != nil {
		t.Errorf("a worse iteration became the best: %+v", d.Best)
	}
	if d.Rollback != "ckpt-2" {
		t.Errorf("rollback = %q, want the best checkpoint ckpt-2", d.Rollback)
	}
	// The next prompt works on the tree rolled back to: it says what fails there.
	if want := "The work tree was rolled back to iteration 2, the best so far; what fails there: test:A"; !strings.Contains(d.Feedback, want) {
		t.Errorf("feedback lacks %q:\n%s", want, d.Feedback)
	}
	// An escalation rolls back too: a run never ends worse than its best.
	d = New(p).Decide(limited{MaxIterations: 3}.input(st, spec, iter(3, "A", "C", "D")))
	if d.Action != state.ActionEscalate || d.Rollback != "ckpt-2" {
		t.Errorf("got %s rollback %q, want escalate with rollback ckpt-2", d.Action, d.Rollback)
	}
}

// After a resume that kept what agentloop did not record (a person's edits
// after a stop), checkpoints from before it are no rollback targets: going
// back to one would take the person's work out of the tree. Those after it
// still are.
func TestRollbackCountsFromTheResumedTree(t *testing.T) {
	t.Parallel()
	spec := gated()
	p := DefaultPolicy()
	for _, tt := range []struct {
		floor int
		want  string
	}{
		{0, "ckpt-2"}, // no resume kept anything: the best checkpoint
		{1, "ckpt-2"}, // attempt 2 ran after the resume: still a target
		{2, ""},       // the person's tree came after attempt 2: no going back past it
	} {
		st := past(p, spec, []evidence.Iteration{iter(1, "A", "B"), iter(2, "A")})
		st.Floor = tt.floor
		d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: iter(3, "A", "C", "D"), Budget: done(3)})
		if d.Rollback != tt.want {
			t.Errorf("floor %d: rollback = %q, want %q", tt.floor, d.Rollback, tt.want)
		}
		d = New(p).Decide(limited{MaxIterations: 3}.input(st, spec, iter(3, "A", "C", "D")))
		if d.Rollback != tt.want {
			t.Errorf("floor %d: escalation rollback = %q, want %q", tt.floor, d.Rollback, tt.want)
		}
		if rolled := strings.Contains(d.Escalation.Report.Best, "rolled back"); rolled != (tt.want != "") {
			t.Errorf("floor %d: the report's best is %q", tt.floor, d.Escalation.Report.Best)
		}
	}
}

func TestNext(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	p.Fallback = []string{"codex", "gemini"}
	spec := gated()
	spec.Limits.IterationTimeout = 10 * time.Minute
	st := past(p, spec, []evidence.Iteration{iter(1, "A", "B"), iter(2, "A", "C"), iter(3, "A")})
	d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: iter(4, "A"), Budget: done(4)})
	if d.Action != state.ActionSimplify {
		t.Fatalf("action %s, want simplify", d.Action)
	}
	n := d.Next
	if n.Attempt != 2 || n.Focus != "test:A" || len(n.Lessons) != 3 || n.Agent != "" {
		t.Errorf("first simplify next = %+v, want attempt 2, focus test:A, 3 lessons, same agent", n)
	}
	record(st, iter(4, "A"), d)
	d = New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: iter(5, "A"), Budget: done(5)})
	// A fresh attempt that made no progress either is evidence enough: escalate.
	// People read plain words; the decision document keeps the detector's.
	if d.Action != state.ActionEscalate || d.Message != "no progress for 2 iterations, still 1 failure (test:A); a fresh attempt from the best checkpoint did not help" ||
		!strings.Contains(d.Document.Decision.Reason, "still stuck after 1 simplification") {
		t.Errorf("stuck after a simplification: %s (%s), want escalate", d.Action, d.Message)
	}

	miss := with(iter(1), func(ev *evidence.Iteration) {
		ev.Gates[0].Passed = false
		ev.Gates[0].Findings = []evidence.Finding{{Kind: evidence.KindBuild, File: "b.go", Message: "undefined: lib.Parse"}}
	})
	d = New(p).Decide(state.DecideInput{State: &state.State{}, Spec: &spec, Evidence: miss, Budget: done(1)})
	want := state.Next{Strategy: "expand", Attempt: 1, Expand: []string{"lib.Parse", "b.go"}, Timeout: state.MillisOf(15 * time.Minute),
		Lessons: d.Next.Lessons}
	if diff := cmp.Diff(want, d.Next); diff != "" {
		t.Errorf("expand next mismatch (-want +got):\n%s", diff)
	}
}

func TestFeedback(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	spec := reviewed()
	review := func(ev *evidence.Iteration) {
		ev.Review = &evidence.Review{Verdict: "request_changes", Score: 5, Findings: []evidence.ReviewFinding{
			{ID: "nil-check", Severity: "major", File: "a.go", Line: 3, Message: "check the nil config"},
			{ID: "naming", Severity: "nit", Message: "rename x"},
		}}
	}
	st := past(p, spec, []evidence.Iteration{with(iter(1, "A", "B"), review)})
	ev := with(iter(2, "A", "C"), func(ev *evidence.Iteration) {
		review(ev)
		ev.Review.Findings = append(ev.Review.Findings, evidence.ReviewFinding{ID: "ctx", Severity: "blocker", Message: "pass a context"})
	})
	ev.Gates[0].Findings[0].Message = "got 1, want 2"
	d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: done(2)})
	fb := d.Feedback
	for _, want := range []string{
		"tests failed (exit 0): 2 failing tests vs prev: 1 new, 1 fixed, 1 still failing (2×)",
		"1. TEST C: C failed",
		"2. TEST A: got 1, want 2",
		"Fixed since the previous iteration: test:B",
		"(blocker, new) [ctx]",
		"(major, still unresolved) [nil-check] a.go:3",
		ruleTests,
	} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback lacks %q:\n%s", want, fb)
		}
	}
	if strings.Contains(fb, "rename x") {
		t.Errorf("a nit is listed while tests fail:\n%s", fb)
	}
	if len(fb) > 10*p.FeedbackMaxLength {
		t.Errorf("feedback is %d bytes, not capped", len(fb))
	}
}

func TestEscalationReportGolden(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	spec := reviewed()
	spec.Name = "fix-login"
	rv := func(score float64, msg string) func(*evidence.Iteration) {
		return func(ev *evidence.Iteration) {
			ev.Review = &evidence.Review{Verdict: "request_changes", Score: score, Findings: []evidence.ReviewFinding{{Severity: "major", Message: msg}}}
			ev.Agent.Usage = evidence.Usage{CostUSD: 0.42, CostKnown: true}
		}
	}
	st := past(p, spec, []evidence.Iteration{with(iter(1, "A"), rv(4, "validate the token")), with(iter(2), rv(5, "use constant-time compare"))})
	d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: with(iter(3), rv(6, "split the handler")),
		Budget: done(3)})
	if d.Action != state.ActionEscalate {
		t.Fatalf("action %s, want escalate", d.Action)
	}
	rep := *d.Escalation.Report
	rep.Diff = "--- a/x.go\n+++ b/x.go\n"
	yml, err := rep.YAML()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := d.Document.YAML()
	if err != nil {
		t.Fatal(err)
	}
	got := rep.Markdown() + "\n---- escalation.yaml\n" + string(yml) + "\n---- decision.yaml\n" + string(doc)
	golden := "testdata/TestEscalationReportGolden.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("report mismatch (-want +got):\n%s", diff)
	}
}

func TestGuidanceAcknowledgesEscalation(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	spec := gated()
	touch := func(ev *evidence.Iteration) { ev.Diff.ProtectedTouched = []string{"auth/a.go"} }
	st := past(p, spec, []evidence.Iteration{with(iter(1), touch)})
	if got := st.History[0].Decision; got != "escalate" {
		t.Fatalf("first decision %s, want escalate", got)
	}
	state.ApplyGuidance(st, state.Guidance{Text: "touching auth/a.go is fine"})
	d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: with(iter(1), touch), Budget: done(1)})
	if d.Action != state.ActionProceed {
		t.Errorf("after guidance: %s (%s), want proceed", d.Action, d.Message)
	}
	secret := with(iter(1), func(ev *evidence.Iteration) { touch(ev); ev.Diff.SecretsFound = 1 })
	if d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: secret, Budget: done(1)}); d.Action != state.ActionEscalate {
		t.Errorf("a secret after guidance: %s, want escalate", d.Action)
	}
}

// BenchmarkDecide measures one decision on a run with a long history.
func BenchmarkDecide(b *testing.B) {
	spec := gated()
	var evs []evidence.Iteration
	for n := 1; n <= 50; n++ {
		evs = append(evs, iter(n, "A", string(rune('B'+n%5))))
	}
	st := past(DefaultPolicy(), spec, evs)
	e := New(DefaultPolicy())
	in := state.DecideInput{State: st, Spec: &spec, Evidence: iter(51, "A"), Budget: done(51)}
	for b.Loop() {
		e.Decide(in)
	}
}

func TestHistoryRowCostUnknownIsNotZero(t *testing.T) {
	t.Parallel()
	if got := row(point{N: 1}, "refine", "", "").Cost; got != "unknown" {
		t.Errorf("unreported cost shown as %q, want unknown", got)
	}
	if got := row(point{N: 1, Cost: 0.5, CostKnown: true}, "refine", "", "").Cost; got != "$0.50" {
		t.Errorf("reported cost shown as %q, want $0.50", got)
	}
}

// TestDocumentIteration: an iteration's decision document is about that
// iteration; the number of the one that follows is under next.
func TestDocumentIteration(t *testing.T) {
	t.Parallel()
	spec := gated()
	st := past(DefaultPolicy(), spec, []evidence.Iteration{iter(1, "TestA", "TestB")})
	d := New(DefaultPolicy()).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: iter(2, "TestA"), Budget: done(2)})
	if !d.Action.Continues() || d.Document == nil {
		t.Fatalf("decision %s with document %v, want one that continues with a document", d.Action, d.Document)
	}
	if got := d.Document.Decision; got.Iteration != 2 || got.Next == nil || got.Next.Iteration != 3 {
		t.Errorf("document iteration %d, next %+v; want 2, next 3", got.Iteration, got.Next)
	}
}

// TestFailuresFromBeforeTheRunKeepTheirMessage: a test that already failed at the
// baseline is named with its location and message in the feedback and in the
// escalation report, not only by its id.
func TestFailuresFromBeforeTheRunKeepTheirMessage(t *testing.T) {
	t.Parallel()
	spec := gated()
	spec.Limits.MaxIterations = 3
	pre := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestAdd", File: "calc_test.go", Line: 7,
		Message: "Add(2,3) = -1, want 5", Key: "TEST|go|calc.TestAdd"}
	ev := iter(1)
	ev.Gates[0].Passed, ev.Gates[0].Preexisting = false, []evidence.Finding{pre}
	st := &state.State{Version: 1, Name: "t", Status: state.StatusRunning, BaselineDone: true,
		Baseline: []evidence.GateResult{{Name: "tests", Required: true, Findings: []evidence.Finding{pre}}}}
	const want = "TEST calc.TestAdd (calc_test.go:7): Add(2,3) = -1, want 5"
	d := New(DefaultPolicy()).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: done(1)})
	if !strings.Contains(d.Feedback, want) || !strings.Contains(d.Feedback, "1 still failing (2×)") {
		t.Errorf("feedback lacks %q or the streak since the baseline:\n%s", want, d.Feedback)
	}
	d = New(DefaultPolicy()).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: done(3)})
	if d.Action != state.ActionEscalate {
		t.Fatalf("action %s at the iteration limit, want escalate", d.Action)
	}
	if rep := d.Escalation.Report; rep == nil || !strings.Contains(rep.Feedback, want) {
		t.Errorf("escalation report lacks %q:\n%+v", want, rep)
	}
	if brief := New(DefaultPolicy()).Brief(st.Baseline); !strings.Contains(brief, want) || !strings.HasPrefix(brief, briefLead) {
		t.Errorf("brief lacks %q:\n%s", want, brief)
	}
	if brief := New(DefaultPolicy()).Brief([]evidence.GateResult{{Name: "tests", Required: true, Passed: true}}); brief != "" {
		t.Errorf("brief of a green baseline = %q, want none", brief)
	}
}

// TestRecordsOfOlderBuildsCompareTheSame: a record written before a gate's keys
// included the baseline's failures compares like a new one: a failure the
// baseline had that still fails is still failing, not new.
func TestRecordsOfOlderBuildsCompareTheSame(t *testing.T) {
	t.Parallel()
	spec := gated()
	pre := evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: "calc.TestAdd", File: "calc_test.go", Line: 7, Message: "Add(2,3) = -1, want 5", Key: "TEST|go|calc.TestAdd"}
	ev := iter(2)
	ev.Gates[0].Passed, ev.Gates[0].Preexisting = false, []evidence.Finding{pre}
	old := state.Record{N: 1, Failing: []string{pre.Key}, Gates: []state.GateSummary{{Name: "tests", Required: true}}}
	st := &state.State{Version: 1, Name: "t", Status: state.StatusRunning, BaselineDone: true, History: []state.Record{old},
		Baseline: []evidence.GateResult{{Name: "tests", Required: true, Findings: []evidence.Finding{pre}}}}
	d := New(DefaultPolicy()).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: done(2)})
	if !strings.Contains(d.Feedback, "vs prev: 0 new, 0 fixed, 1 still failing (3×)") {
		t.Errorf("feedback does not count the old record's baseline failure as still failing:\n%s", d.Feedback)
	}
}

// TestStuckRecommendation: a run stuck close to done (quality 0.9 or more)
// is recommended for acceptance, one further away for a hint.
func TestStuckRecommendation(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	passing := func(n int) func(*evidence.Iteration) {
		return func(ev *evidence.Iteration) { ev.Gates[0].Tests.Passed = n }
	}
	const accept, hint = "Accept the best checkpoint", "Resume with a hint"
	tests := []struct {
		name    string
		failing []string
		passed  int
		want    string
	}{
		{"1 of 100 failing", []string{"A"}, 99, accept},
		{"1 of 10 failing: 0.9", []string{"A"}, 9, accept},
		{"2 of 11 failing", []string{"A", "B"}, 9, hint},
		{"3 of 4 failing", []string{"A", "B", "C"}, 1, hint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := thresholded(3)
			var evs []evidence.Iteration
			for i := 1; i <= 3; i++ {
				evs = append(evs, with(iter(i, tt.failing...), passing(tt.passed)))
			}
			st := past(p, spec, evs[:2])
			d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: evs[2], Budget: done(3)})
			if d.Action != state.ActionEscalate || d.Escalation == nil || d.Escalation.Report == nil || d.Escalation.Report.Class != "stuck" {
				t.Fatalf("decision %s %+v, want a stuck escalation", d.Action, d.Escalation)
			}
			if rec := d.Escalation.Report.Recommendation; !strings.HasPrefix(rec, tt.want) {
				t.Errorf("recommendation %q, want %q…", rec, tt.want)
			}
		})
	}
}

// An agent that moved the branch escalates at once, after guidance too, and
// the report names what it did and asks whether it may use git that way.
func TestMovedBranchEscalates(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	spec := gated()
	moved := with(iter(1), func(ev *evidence.Iteration) {
		ev.Agent.Outcome = evidence.OutcomeMovedBranch
		ev.Records = evidence.RecordChanges{{Kind: evidence.RecordSwitched, What: "switched the branch from main to evil", Repaired: "back on main"}}
	})
	st := past(p, spec, nil)
	for range 2 {
		d := New(p).Decide(state.DecideInput{State: st, Spec: &spec, Evidence: moved, Budget: done(1)})
		if d.Action != state.ActionEscalate || d.Escalation == nil || d.Escalation.Report == nil {
			t.Fatalf("decision %s (%s), want an escalation with a report", d.Action, d.Message)
		}
		r := d.Escalation.Report
		if r.Class != decision.TriggerMovedBranch || !strings.Contains(r.Reason, "the agent moved the branch: switched the branch from main to evil (back on main)") ||
			!strings.Contains(r.Question, "changed git itself") {
			t.Errorf("report class %q, reason %q, question %q", r.Class, r.Reason, r.Question)
		}
		state.ApplyGuidance(st, state.Guidance{Text: "do not touch git"})
	}
}
