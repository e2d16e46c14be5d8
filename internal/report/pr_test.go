package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/state"
)

func TestPRBodyGolden(t *testing.T) {
	t.Parallel()
	opts := PROptions{Closes: 12, ReportURL: "https://example.com/runs/build/report.html"}
	tests := []struct {
		name string
		run  Run
		o    PROptions
	}{
		{"pr_pass", prPassRun(), opts},
		{"pr_preexisting", prPreexistingRun(), PROptions{Closes: 7}},
		{"pr_tamper", prTamperRun(), opts},
		{"pr_guidance", segmentedRun(), opts},
		{"pr_huge", prHugeRun(), PROptions{Closes: 12, MaxLength: 20_000}},
		{"pr_empty", Run{}, PROptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := PRBody(tt.run, tt.o)
			checkTables(t, body)
			golden(t, tt.name, []byte(body))
		})
	}
}

// A huge run's body stays under the cap: the longest sections are cut, each
// with a line saying so and where the full report is; the verdict and the
// gates table never are.
func TestPRBodyCap(t *testing.T) {
	t.Parallel()
	r := prHugeRun()
	whole := PRBody(r, PROptions{MaxLength: 1 << 30})
	if len(whole) < 100_000 {
		t.Fatalf("the huge run's uncut body is %d bytes: too small to test the cap", len(whole))
	}
	for _, limit := range []int{0, 20_000, 3_000} {
		body := PRBody(r, PROptions{MaxLength: limit, Closes: 3})
		want := limit
		if want == 0 {
			want = PRBodyMax
		}
		if len(body) > want {
			t.Errorf("cap %d: body is %d bytes", limit, len(body))
		}
		if !strings.HasPrefix(body, "❌ **agentloop: aborted**") || !strings.Contains(body, "| gate | | before (baseline) | after |") {
			t.Errorf("cap %d: the verdict or the gates table was cut:\n%.600s", limit, body)
		}
		if !strings.Contains(body, "was cut to keep this body under GitHub's limit; the run's records hold it: the full report, `agentloop report huge --run 20260314-120000-9999`") {
			t.Errorf("cap %d: no line says what was cut and where the full report is", limit)
		}
	}
	// The gates table alone over the cap: cut at a line, with the note.
	body := PRBody(r, PROptions{MaxLength: 600, Closes: 3})
	if len(body) > 600 || !strings.Contains(body, "The rest of this body was cut") || !strings.HasPrefix(body, "❌") || !strings.Contains(body, "Closes #3\n") {
		t.Errorf("a cap under the gates table: %d bytes, want the verdict, a note of the cut and the issue closed:\n%s", len(body), body)
	}
}

// No secret reaches the body: not one a gate printed (in a failure's name),
// nor one in the reviewer's words, a person's guidance or the agent's answer
// that the records kept unredacted.
func TestPRBodyRedacts(t *testing.T) {
	t.Parallel()
	const env, shape = "tok-4f9a8b7c6d5e", "ghp_R8xk2Lq9VwZ3mN7pT4sY6bC1dF5gH0jK2aE9"
	r := prPassRun()
	s := r.State
	leak := " token " + env + " and " + shape
	for _, secret := range []string{env, shape} { // a gate's output keeps a finding's message
		s.Baseline[0].Findings = append(s.Baseline[0].Findings, evidence.Finding{Kind: "error", Key: "ERROR|sh|login||token " + secret + " rejected"})
	}
	s.Reason += leak
	last := seqOf(s.History[len(s.History)-1])
	a := r.Attempts[last]
	a.Answer += "\nI logged in with" + leak
	rv := *a.Review
	rv.Summary += leak
	rv.Findings = append(rv.Findings, evidence.ReviewFinding{Severity: "minor", Message: "prints" + leak})
	a.Review = &rv
	r.Attempts[last] = a
	s.Handoffs = append(s.Handoffs, state.Handoff{Kind: state.HandoffGuide, At: t0, By: "dev", After: 1, Segment: 1, Iteration: 2, Text: "use" + leak})
	body := PRBody(r, PROptions{Redactor: redact.New([]string{"MY_SERVICE_TOKEN=" + env})})
	for _, secret := range []string{env, shape} {
		if strings.Contains(body, secret) {
			t.Errorf("the body holds %s:\n%s", secret, body)
		}
	}
	if n := strings.Count(body, "[REDACTED:$MY_SERVICE_TOKEN]"); n < 5 {
		t.Errorf("%d redaction markers of the variable, want one each in the failure, the reviewer's summary and finding, the guidance and the answer:\n%s", n, body)
	}
	// Without a redactor given, the credential shapes still go.
	if body := PRBody(r, PROptions{}); strings.Contains(body, shape) {
		t.Errorf("the default redactor left %s", shape)
	}
}

// Words that are not agentloop's own are quoted where GitHub does not act on
// them: an agent's "Fixes #3" closes nothing, its markup is not rendered.
func TestPRBodyQuotesOthersWords(t *testing.T) {
	t.Parallel()
	r := prPassRun()
	last := seqOf(r.State.History[len(r.State.History)-1])
	a := r.Attempts[last]
	a.Answer = "Fixes #3. ```\n<details>@someone</details>\n````"
	r.Attempts[last] = a
	body := PRBody(r, PROptions{Closes: 12})
	i := strings.Index(body, "Fixes #3")
	open := strings.LastIndex(body[:i], "\n`````text\n")
	if open < 0 || !strings.Contains(body[i:], "\n`````\n") {
		t.Errorf("the agent's answer is not in a fence longer than its own backticks:\n%s", body)
	}
	if strings.Count(body, "Closes #") != 1 {
		t.Errorf("want one Closes line, the body's own")
	}
}

// The verdict says what the run's records hold: no gates when none ran,
// whatever the status says.
func TestPRBodyVerdictWithoutGates(t *testing.T) {
	t.Parallel()
	st := &state.State{Name: "build", Status: state.StatusSucceeded, History: []state.Record{{N: 1, Seq: 1, Succeeded: true, Review: "approve", Decision: "proceed"}}}
	body := PRBody(Run{State: st}, PROptions{})
	if want := "✅ **agentloop: no gates ran, reviewer approved, no diff to check for tampering** — 1 iteration, cost unknown\n"; !strings.HasPrefix(body, want) {
		t.Errorf("verdict:\n%s\nwant %s", body, want)
	}
}

// Failures left that are the run's are named, never said to be outside the
// task; those the decider set aside are.
func TestPRBodyLeftFailures(t *testing.T) {
	t.Parallel()
	r := prPreexistingRun()
	st := r.State
	st.Status, st.Reason = state.StatusEscalated, "stuck"
	st.History[0].OutsideTask = nil
	body := PRBody(r, PROptions{})
	if !strings.Contains(body, "- `calc.TestRemote`\n") || strings.Contains(body, "outside the task") {
		t.Errorf("a failure left that is the run's:\n%s", body)
	}
	body = PRBody(prPreexistingRun(), PROptions{})
	if !strings.Contains(body, "- `calc.TestRemote` (outside the task)\n") || !strings.Contains(body, "Outside the task: "+outsideTaskText) {
		t.Errorf("a failure left outside the task:\n%s", body)
	}
}

// checkTables fails when a table row of body has not as many cells as its
// header: a text with a pipe that broke out of its cell.
func checkTables(t *testing.T, body string) {
	t.Helper()
	want := -1
	for _, l := range strings.Split(body, "\n") {
		if !strings.HasPrefix(l, "|") {
			want = -1
			continue
		}
		n := len(splitRow(l))
		if want < 0 {
			want = n
		} else if n != want {
			t.Errorf("table row with %d cells, its header has %d: %s", n, want, l)
		}
	}
}

// testKey is a test failure's key as gates record it.
func testKey(name string) string { return "TEST|go|" + name }

// prGates are the gates of an attempt: tests with its failure keys, and lint.
func prGates(keys ...string) []state.GateSummary {
	return []state.GateSummary{
		{Name: "tests", Required: true, Passed: len(keys) == 0, ExitCode: min(len(keys), 1), Failures: len(keys), Keys: keys},
		{Name: "lint", Passed: true},
	}
}

// prBaseline are the gates before the run: these tests fail.
func prBaseline(names ...string) []evidence.GateResult {
	tests := evidence.GateResult{Name: "tests", Required: true, ExitCode: 1, Tests: evidence.TestCounts{Passed: 4, Failed: len(names)}}
	for _, n := range names {
		tests.Findings = append(tests.Findings, evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: n, Key: testKey(n)})
	}
	return []evidence.GateResult{tests, {Name: "lint", Passed: true}}
}

// prPassRun succeeded in three iterations: the three tests failing before
// the run pass, the reviewer approves, the agent's cost is reported by its
// CLI but for one attempt, priced from its tokens.
func prPassRun() Run {
	const id = "20260314-100000-a1b2"
	rec := func(n int, keys []string, decision, review string, u evidence.Usage) state.Record {
		r := state.Record{N: n, Seq: n, Segment: 1, StartedAt: t0.Add(time.Duration(n) * time.Minute), Duration: 40000, Usage: u,
			Gates: prGates(keys...), Failing: keys, Decision: decision, Strategy: decision, Review: review,
			Checkpoint: fmt.Sprintf("refs/agentloop/build/%s/iter-%d", id, n), DiffHash: fmt.Sprintf("d%d", n)}
		if review != "" {
			r.ReviewScore, r.ReviewUsage = 8.5, evidence.Usage{InputTokens: 4000, OutputTokens: 300, TokensKnown: true, CostUSD: 0.03, CostKnown: true}
		}
		return r
	}
	estimated := usage(9000, 2000, 0.09)
	estimated.CostEstimated = true
	st := &state.State{
		Version: state.StateVersion, Name: "build", RunID: id, Procedure: "build",
		Status: state.StatusSucceeded, Reason: "all required gates passed and the reviewer approved",
		Iteration: 3, TotalIterations: 3, Attempts: 3, Segment: 1, MaxIterations: 6, StartedAt: t0, LastIterationAt: t0.Add(4 * time.Minute),
		BaselineDone: true, Baseline: prBaseline("calc.TestAdd", "calc.TestSub", "calc.TestMul"),
		History: []state.Record{
			rec(1, []string{testKey("calc.TestSub"), testKey("calc.TestMul")}, "refine", "", usage(12000, 3000, 0.14)),
			rec(2, []string{testKey("calc.TestMul")}, "refine", "", estimated),
			rec(3, nil, "proceed", "approve", usage(8000, 1500, 0.12)),
		},
		Spend: state.Spend{
			Usage:    evidence.Usage{InputTokens: 29000, OutputTokens: 6500, CacheReadTokens: 87000, TokensKnown: true, CostUSD: 0.35, CostKnown: true, CostEstimated: true, Model: "claude-sonnet-4-5"},
			Reviewer: evidence.Usage{InputTokens: 4000, OutputTokens: 300, TokensKnown: true, CostUSD: 0.03, CostKnown: true},
			Wall:     150000,
		},
	}
	return Run{State: st, Attempts: map[int]Attempt{3: {
		Review: &evidence.Review{Verdict: "approve", Score: 8.5, Summary: "Add, Sub and Mul are right; the tests cover the edge cases.",
			Findings: []evidence.ReviewFinding{{Severity: "nit", File: "calc.go", Line: 12, Message: "Mul's comment still says it adds"}}},
		Triggers: []decision.Trigger{},
		Answer:   "I fixed **Add**, Sub and Mul.\n\nAll tests pass now. Fixes #12.",
	}}}
}

// prPreexistingRun succeeded with TestRemote failing as it did before the
// run, outside the task; no reviewer, costs unknown.
func prPreexistingRun() Run {
	st := &state.State{
		Version: state.StateVersion, Name: "calc", RunID: "20260314-110000-c0c0", Procedure: "build",
		Status: state.StatusSucceeded, Reason: "all required gates passed; failing before the run, outside the task: calc.TestRemote",
		Iteration: 1, TotalIterations: 1, Attempts: 1, StartedAt: t0, BaselineDone: true, Baseline: prBaseline("calc.TestAdd", "calc.TestRemote"),
		History: []state.Record{{N: 1, Seq: 1, StartedAt: t0, Duration: 20000, Succeeded: true, Gates: prGates(testKey("calc.TestRemote")),
			OutsideTask: []string{testKey("calc.TestRemote")}, Decision: "proceed", Checkpoint: "refs/agentloop/calc/x/iter-1"}},
		Spend: state.Spend{Wall: 21000},
	}
	return Run{State: st}
}

// prTamperRun escalated: attempt 2 removed an assertion, attempt 3 put it
// back (an edit of the test file), attempt 4 deleted the test again.
func prTamperRun() Run {
	r := prPassRun()
	st := r.State
	st.Status, st.Reason = state.StatusEscalated, "test tampering again: since the run's start: tests removed: calc.TestMul"
	st.History = st.History[:2]
	st.History[1].Triggers = []string{decision.TriggerTestTampering, decision.TriggerValidationFailure}
	st.History[1].Review, st.History[1].ReviewScore = "", 0
	third := st.History[1]
	third.N, third.Seq, third.Triggers, third.Decision = 3, 3, []string{decision.TriggerTestTampering}, "refine"
	fourth := third
	fourth.N, fourth.Seq, fourth.Decision, fourth.Gates, fourth.Failing = 4, 4, "escalate", prGates(), nil
	st.History = append(st.History, third, fourth)
	st.Iteration, st.TotalIterations, st.Attempts = 4, 4, 4
	st.Spend.Reviewer = evidence.Usage{}
	tamper := func(sev float64, what string) Attempt {
		return Attempt{Triggers: []decision.Trigger{{ID: decision.TriggerTestTampering, Severity: sev, Fixable: true, Evidence: what}}}
	}
	r.Attempts = map[int]Attempt{
		2: tamper(0.9, "1 assertion removed"),
		3: tamper(0.5, "test files edited: calc_test.go"),
		4: tamper(0.9, "since the run's start: tests removed: TestMul"),
	}
	return r
}

// prHugeRun is a run too big for a pull request's body: 2,000 iterations,
// 600 tests fixed, a long review and a long answer.
func prHugeRun() Run {
	const id = "20260314-120000-9999"
	var names []string
	for i := range 600 {
		names = append(names, fmt.Sprintf("storage.TestCase%04dWithAVeryLongNameIndeed", i))
	}
	st := &state.State{Version: state.StateVersion, Name: "huge", RunID: id, Procedure: "build",
		Status: state.StatusAborted, Reason: "budget: $50.00 of $50.00 spent", StartedAt: t0, BaselineDone: true, Baseline: prBaseline(names...),
		Spend: state.Spend{Usage: usage(9_000_000, 1_000_000, 50), Wall: 36_000_000}}
	for i := 1; i <= 2000; i++ {
		st.History = append(st.History, state.Record{N: i, Seq: i, StartedAt: t0.Add(time.Duration(i) * time.Minute), Usage: usage(6000, 600, 0.03),
			Gates: prGates(testKey(names[i%len(names)])), Failing: []string{testKey(names[i%len(names)])}, Decision: "refine", Checkpoint: "c"})
	}
	st.History[1999].Review = "request_changes"
	st.Iteration, st.TotalIterations, st.Attempts = 2000, 2000, 2000
	return Run{State: st, Attempts: map[int]Attempt{2000: {
		Review: &evidence.Review{Verdict: "request_changes", Summary: strings.Repeat("The storage layer still leaks handles. ", 400)},
		Answer: strings.Repeat("I refactored the storage layer once more. ", 500),
	}}}
}

// The body renders as Markdown: its tables are tables, its quotes code
// blocks, no fence left open.
func TestPRBodyRenders(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]Run{"pass": prPassRun(), "guidance": segmentedRun(), "tamper": prTamperRun()} {
		html := string(markdownHTML(PRBody(r, PROptions{Closes: 1})))
		if !strings.Contains(html, "<th>gate</th>") || !strings.Contains(html, "<th>attempt</th>") {
			t.Errorf("%s: the gates and iterations tables did not render as tables:\n%s", name, html)
		}
		if strings.Contains(html, "```") || strings.Contains(html, "<p>|") {
			t.Errorf("%s: a fence or a table row rendered as text:\n%s", name, html)
		}
	}
}

// agentloop's own words are plain text in the body: a test's name or an
// agent's reason quoted in them takes no markup (strikethrough, HTML, emphasis).
func TestMDText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"stuck on ~TestA~ and <b>x</b>": `stuck on \~TestA\~ and &lt;b&gt;x&lt;/b&gt;`,
		"a_b *c* [d](e) `f`":            "a\\_b \\*c\\* \\[d\\](e) \\`f\\`",
		"one\nline | two":               `one line \| two`,
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}
