package decide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
)

// escalateWords are the reviewer concerns that escalate at once, bypassing the
// iteration limit, by class.
var escalateWords = []struct{ class, words string }{
	{ClassSecurity, "security|vulnerab|secret|credential|injection"},
	{ClassConflict, "conflicting requirement|requirements conflict|contradict"},
	{ClassArchitecture, "architectur|breaking change|public api"},
	{ClassScopeCreep, "scope creep|out of scope|outside the scope|beyond the task"},
}

// Evaluate decides on an `iteration_check`: proceed when the tests
// pass and the reviewer approves (or has not reviewed yet); escalate at once on a
// reviewer concern of a class in Policy.EscalateOn; escalate when the iteration
// limit is reached or the policy turns automatic retries off; otherwise retry with
// feedback whose actionable items come from the test output and the review.
func Evaluate(c Check, p Policy) decision.Document {
	p = p.withDefaults()
	limit := c.MaxIterations
	if limit == 0 {
		limit = p.MaxIterations
	}
	d := decision.Body{TaskID: c.TaskID}
	testsPass := c.Test.Status == "pass"
	rejected := c.Review.Status == "reject"
	if testsPass && !rejected {
		d.Action = "proceed"
		d.Message = fmt.Sprintf("All tests pass and the review approved (iteration %d of %d).", c.CurrentIteration, limit)
		if c.Review.Status == "pending" {
			d.Message = fmt.Sprintf("All tests pass (iteration %d of %d); the review is pending.", c.CurrentIteration, limit)
		}
		return decision.Document{Decision: d}
	}
	attempts := append(slices.Clone(c.History), c)
	if class := concern(c.Review.Feedback, p); class != "" {
		return escalateCheck(d, attempts, fmt.Sprintf("The reviewer raised a %s concern, which needs a person.", strings.ReplaceAll(class, "_", " ")), class)
	}
	switch {
	case c.CurrentIteration >= limit:
		return escalateCheck(d, attempts, fmt.Sprintf("Max iterations reached (%d of %d) without passing tests and an approving review.", c.CurrentIteration, limit), "")
	case !testsPass && !p.AutoRetryOnTestFail:
		return escalateCheck(d, attempts, "Tests fail and auto_retry_on_test_fail is off.", "")
	case rejected && !p.AutoRetryOnReviewReject:
		return escalateCheck(d, attempts, "The review rejected the change and auto_retry_on_review_reject is off.", "")
	}
	d.Action = "retry"
	d.Iteration = c.CurrentIteration + 1
	d.Feedback = checkFeedback(c, p)
	return decision.Document{Decision: d}
}

func concern(fb string, p Policy) string {
	low := strings.ToLower(fb)
	for _, e := range escalateWords {
		if !p.escalates(e.class) {
			continue
		}
		for _, w := range strings.Split(e.words, "|") {
			if strings.Contains(low, w) {
				return e.class
			}
		}
	}
	return ""
}

// checkFeedback is the retry feedback: a summary, the actionable items (test
// failures first, then the review) and a priority, within FeedbackMaxLength.
func checkFeedback(c Check, p Policy) *decision.Feedback {
	var items []string
	var fs []failure
	if c.Test.Status == "fail" {
		fs = failures(c.Test.Output)
		for _, f := range fs {
			if !slices.Contains(items, f.Message) {
				items = append(items, f.Message)
			}
		}
		if len(items) == 0 {
			items = append(items, "Test failed: "+orText(clip(firstLine(c.Test.Output), 120), "see the test output"))
		}
	}
	if c.Review.Status == "reject" {
		items = append(items, reviewItems(c.Review.Feedback)...)
	}
	fb := &decision.Feedback{Priority: "medium"}
	switch {
	case c.Test.Status == "fail":
		fb.Priority = "high"
		fb.Summary = fmt.Sprintf("%d test failure(s): %s", failingTests(fs), strings.TrimPrefix(items[0], "Test failed: "))
	default:
		fb.Summary = "The review rejected the change"
	}
	if c.Test.Status == "fail" && c.Review.Status == "reject" {
		fb.Summary += "; the review rejected the change"
	}
	fb.Summary = clip(fb.Summary, p.FeedbackMaxLength)
	total := len(fb.Summary)
	for _, it := range items {
		if len(fb.ActionableItems) == 7 || total+len(it) > p.FeedbackMaxLength {
			break
		}
		fb.ActionableItems = append(fb.ActionableItems, it)
		total += len(it)
	}
	return fb
}

// failingTests counts the tests that failed: a test with several failed
// assertions counts once, a failure that names no test counts on its own, and
// output that could not be read still says at least one.
func failingTests(fs []failure) int {
	var named []string
	n := 0
	for _, f := range fs {
		switch {
		case f.Test == "":
			n++
		case !slices.Contains(named, f.Test):
			named = append(named, f.Test)
		}
	}
	return max(n+len(named), 1)
}

// escalateCheck fills an escalation: every attempt summarized, the pattern, one
// question with numbered options.
func escalateCheck(d decision.Body, attempts []Check, reason, class string) decision.Document {
	d.Action = "escalate"
	d.Reason = reason
	ctx := &decision.Context{}
	var perAttempt [][]failure
	for i, a := range attempts {
		fs := []failure(nil)
		if a.Test.Status == "fail" {
			fs = failures(a.Test.Output)
		}
		perAttempt = append(perAttempt, fs)
		ctx.AttemptsSummary = append(ctx.AttemptsSummary, attemptLine(i, a, fs))
	}
	pat, q, opts := checkPattern(perAttempt, attempts, class)
	ctx.PatternDetected = pat
	d.Context = ctx
	d.Question = q
	d.Options = decision.OptionLines(opts)
	return decision.Document{Decision: d}
}

func attemptLine(i int, a Check, fs []failure) string {
	n := a.CurrentIteration
	if n == 0 {
		n = i + 1
	}
	s := fmt.Sprintf("Attempt %d: tests %s", n, a.Test.Status)
	if len(fs) > 0 {
		s += " (" + strings.TrimPrefix(fs[0].Message, "Test failed: ") + ")"
	}
	s += "; review " + a.Review.Status
	if a.Review.Feedback != "" {
		s += ": " + clip(a.Review.Feedback, 100)
	}
	return s
}
