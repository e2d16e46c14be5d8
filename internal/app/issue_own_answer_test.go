package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/state"
)

// An /agentloop accept answers the question it was given to only: a
// check accepted over its cap, mended, then failing again at the same
// count is asked about in a new comment (the old one not found again) and
// waits for a command after it, the old accept not taken again; whether it
// was mended with nothing else to do or beside a review accepted as well.
func TestIssuePRAcceptAnswersItsQuestionOnly(t *testing.T) {
	t.Parallel()
	for _, beside := range []bool{false, true} {
		t.Run(fmt.Sprintf("beside_a_review_%v", beside), func(t *testing.T) {
			t.Parallel()
			c := newIssueCase(t, state.StatusSucceeded)
			c.overCap(t)
			c.f.say("maint", true, "/agentloop accept")
			if out, err := c.run(t); err != nil || !out.Chosen {
				t.Fatalf("accept: %+v, %v\n%s", out, err, c.out)
			}
			if beside { // a review over its cap, accepted too, the check still red on each head
				for _, id := range []int64{910, 911} {
					c.f.mu.Lock()
					c.f.reviews = append(c.f.reviews, forge.Review{ID: id, Author: "maint", Trusted: true, State: "CHANGES_REQUESTED", Body: "Rename it."})
					c.f.mu.Unlock()
					c.f.check("lint", "failure", "FAIL")
					if _, err := c.run(t); err != nil {
						t.Fatalf("review %d: %v\n%s", id, err, c.out)
					}
				}
				c.f.say("maint", true, "/agentloop accept")
				if out, err := c.run(t); err != nil || !out.Chosen || len(c.eng.resumes) != 2 {
					t.Fatalf("accept the review: %+v, %v, %d resumes\n%s", out, err, len(c.eng.resumes), c.out)
				}
				if st := c.state(t); len(strings.Fields(st.Issue.Accepted)) != 2 {
					t.Fatalf("not both accepted: %+v", st.Issue)
				}
			}
			resumes, asked := len(c.eng.resumes), len(c.f.marked("escalation"))
			c.f.check("lint", "success", "")
			if out, err := c.run(t); err != nil || out.Status != state.StatusSucceeded || len(c.eng.resumes) != resumes {
				t.Fatalf("mended: %+v, %v\n%s", out, err, c.out)
			}
			c.f.check("lint", "failure", "FAIL again")
			for i := range 2 {
				c.out.Reset()
				if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated || out.Chosen || strings.Contains(c.out.String(), "accepted") {
					t.Fatalf("red again, look %d: %+v, %v: the old accept taken again\n%s", i, out, err, c.out)
				}
			}
			esc := c.f.marked("escalation")
			if len(esc) != asked+1 || !strings.Contains(esc[len(esc)-1].Body, "the check lint failed") {
				t.Fatalf("red again: %d questions (were %d), not asked anew", len(esc), asked)
			}
			if st := c.state(t); st.Issue.Asked != esc[len(esc)-1].ID || st.Issue.AskedFor != "pr/50/check_lint/1" {
				t.Errorf("the run's record: %+v", st.Issue)
			}
			if got := c.f.labelSet(); !slices.Equal(got, []string{"agentloop:needs-you"}) {
				t.Errorf("labels %v", got)
			}
			c.f.say("maint", true, "/agentloop accept")
			if out, err := c.run(t); err != nil || !out.Chosen || len(c.eng.resumes) != resumes {
				t.Errorf("the new question accepted: %+v, %v\n%s", out, err, c.out)
			}
		})
	}
}
