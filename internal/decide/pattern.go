package decide

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
)

// checkPattern names the pattern across attempts of an iteration_check and asks
// the one question it raises, with options.
func checkPattern(per [][]failure, attempts []Check, class string) (string, string, []decision.Option) {
	switch class {
	case ClassSecurity, ClassArchitecture, ClassConflict, ClassScopeCreep:
		fb := clip(attempts[len(attempts)-1].Review.Feedback, 160)
		pat := fmt.Sprintf("The reviewer raised a %s concern: %s", strings.ReplaceAll(class, "_", " "), fb)
		return pat, "Should the change go ahead despite the reviewer's " + strings.ReplaceAll(class, "_", " ") + " concern?",
			[]decision.Option{optApprove, {Label: "Address the concern first", TradeOff: "resume with guidance on what is acceptable; more iterations"}, optAbort}
	}
	// A value that is a number in one place and a string in another.
	for _, fs := range per {
		for _, f := range fs {
			if typeMismatch(f.Expected, f.Received) {
				field := orText(f.Field, "the value")
				pat := fmt.Sprintf("Type mismatch: %s is a string in one place and a number in another (expected %s, received %s)", field, f.Expected, f.Received)
				return pat, fmt.Sprintf("Should %s be a string or a number?", field), []decision.Option{
					{Label: "A string", TradeOff: fmt.Sprintf("convert %s to a string where it is created; anything that compares it as a number must change", field)},
					{Label: "A number", TradeOff: fmt.Sprintf("parse %s to a number where it is read; tests that expect a string must change", field)},
					{Label: "Leave it to the agent with a hint", TradeOff: "resume with guidance naming the one place that defines the type; may take another attempt"},
				}
			}
		}
	}
	msgs := make([]string, len(per))
	for i, fs := range per {
		if len(fs) > 0 {
			msgs[i] = fs[0].Message
		} else if attempts[i].Review.Status == "reject" {
			msgs[i] = "Review rejected: " + clip(attempts[i].Review.Feedback, 100)
		}
	}
	n := len(msgs)
	same := n > 1 && msgs[0] != ""
	for _, m := range msgs {
		same = same && m == msgs[0]
	}
	switch {
	case same:
		what := strings.TrimPrefix(msgs[0], "Test failed: ")
		return fmt.Sprintf("The same failure in all %d attempts: %s", n, what),
			fmt.Sprintf("What is the intended behaviour behind \"%s\", which %d attempts could not fix?", what, n),
			[]decision.Option{optResume, optAccept, optAbort}
	case n >= 3 && msgs[n-1] == msgs[n-3] && msgs[n-1] != msgs[n-2] && msgs[n-1] != "":
		a, b := strings.TrimPrefix(msgs[n-1], "Test failed: "), strings.TrimPrefix(msgs[n-2], "Test failed: ")
		// The agent going round, not a conflict of requirements: both tests can
		// be valid, and asking which wins pushes toward dropping one.
		return fmt.Sprintf("Oscillation: the fix for one failure breaks the other, and back (%s / %s)", a, b),
			fmt.Sprintf("The agent fixes one of these only by breaking the other, and back: %s; %s. What must the code do so that both pass?", a, b),
			[]decision.Option{{Label: "Resume with a hint on how both can pass", TradeOff: "another attempt with your guidance; both tests stay as they are"},
				optAccept, {Label: "One of the tests is wrong", TradeOff: "a person changes that test, then resumes"}}
	}
	last := strings.TrimPrefix(msgs[n-1], "Test failed: ")
	if last == "" {
		last = "the remaining failure"
	}
	return fmt.Sprintf("Different failures in %d attempts; the last: %s", n, last),
		fmt.Sprintf("What does the agent miss to fix %s?", last),
		[]decision.Option{optResume, optAccept, optAbort}
}
