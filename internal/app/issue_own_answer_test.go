package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/gitx"
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
				if st := c.state(t); st.Issue.Accepted != "pr/50/check_lint/1" || st.Issue.Reviewed != 911 {
					t.Fatalf("not both settled (the check accepted, the reviews taken as they are): %+v", st.Issue)
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

// theirCommit pushes a commit of someone else's to the pull request's
// branch: its id.
func (c *issueCase) theirCommit(t *testing.T) string {
	t.Helper()
	other := filepath.Join(t.TempDir(), "other")
	gitIn(t, filepath.Dir(other), "clone", "-q", "-b", "agentloop/issue/7", c.remote, other)
	if err := os.WriteFile(filepath.Join(other, "mine.txt"), []byte("a maintainer's try on "+c.remoteHead(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, other, "add", "-A")
	gitIn(t, other, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a maintainer's try")
	gitIn(t, other, "push", "-q", "origin", "agentloop/issue/7")
	return c.remoteHead(t)
}

// The question about commits someone else pushed to the pull request's
// branch says which commands answer it, and a writer's command after it
// answers it as a question over a cap is answered (a stranger's ignored):
// guide takes their commits as the branch's start and goes on from them
// with the guidance, the push keeping them; accept leaves the pull request
// as it is, not asked about again; abort ends agentloop's work on it.
func TestIssuePRPushedAnswered(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"guide Keep their file.", "accept", "abort"} {
		t.Run(strings.Fields(cmd)[0], func(t *testing.T) {
			t.Parallel()
			c := newIssueCase(t, state.StatusSucceeded)
			c.opened(t)
			theirs := c.theirCommit(t)
			c.f.check("lint", "failure", "FAIL on their commit")
			if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated {
				t.Fatalf("pushed by someone else: %+v, %v\n%s", out, err, c.out)
			}
			esc := c.f.marked("escalation")
			if len(esc) != 1 || !strings.Contains(esc[0].Body, "`/agentloop guide TEXT`: take the commits pushed to the branch as its new start and go on from them for it, with TEXT as guidance") ||
				!strings.Contains(esc[0].Body, "`/agentloop accept`: leave the pull request as it is") || !strings.Contains(esc[0].Body, "`/agentloop abort`: stop agentloop's work on the pull request") {
				t.Fatalf("the question: %+v", esc)
			}
			c.f.say("stranger", false, "/agentloop guide push over them")
			if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated || len(c.eng.resumes) != 0 {
				t.Fatalf("a stranger's guide: %+v, %v, %d resumes\n%s", out, err, len(c.eng.resumes), c.out)
			}
			c.f.say("maint", true, "/agentloop "+cmd)
			out, err := c.run(t)
			switch cmd {
			case "accept", "abort":
				want := map[string]state.Status{"accept": state.StatusSucceeded, "abort": state.StatusAborted}[cmd]
				if err != nil || out.Status != want || !out.Chosen || len(c.eng.resumes) != 0 || c.remoteHead(t) != theirs {
					t.Fatalf("/agentloop %s: %+v, %v, %d resumes\n%s", cmd, out, err, len(c.eng.resumes), c.out)
				}
				posted := c.f.posted
				if out, err := c.run(t); err != nil || out.Status == state.StatusEscalated || c.f.posted != posted || len(c.eng.resumes) != 0 {
					t.Errorf("again: %+v, %v, %d comments (was %d)\n%s", out, err, c.f.posted, posted, c.out)
				}
				if st := c.state(t); st.Issue.AskedFor != "" || cmd == "abort" && st.Issue.Ended != endedAborted || cmd == "accept" && st.Issue.Accepted != "pr/50/check_lint/0" {
					t.Errorf("the run's record: %+v", st.Issue)
				}
				return
			}
			if err != nil || out.Status != state.StatusSucceeded || len(c.eng.resumes) != 1 {
				t.Fatalf("/agentloop guide: %+v, %v, %d resumes\n%s", out, err, len(c.eng.resumes), c.out)
			}
			if g := c.eng.resumes[0].Guidance; !strings.Contains(g, `check "lint" failed`) || !strings.Contains(g, "maint, who may write to the repository, answered: go on from their commits (this branch now has them), with this guidance:\nKeep their file.") || strings.Contains(g, "push over them") {
				t.Errorf("the continuation is given:\n%s", g)
			}
			if head := c.remoteHead(t); head == theirs || !gitx.IsAncestor(t.Context(), c.remote, theirs, head) {
				t.Errorf("the remote's branch %s does not keep their commit %s", head, theirs)
			}
			if st := c.state(t); st.Issue.AskedFor != "" || st.Issue.Asked != 0 || st.Issue.Fixes["check lint"] != 1 || st.Issue.Granted["check lint"] != 0 {
				t.Errorf("the run's record: %+v", st.Issue)
			}
			if got := c.f.labelSet(); !slices.Equal(got, []string{"agentloop:done"}) {
				t.Errorf("labels %v", got)
			}
		})
	}
}

// A question about commits someone else pushed that carries a question over
// another failure's cap: a writer's command after it answers it (a guide:
// the review's continuation goes on from their commits; an accept: the
// review is left as it is), and the cap's question waits again, for a
// command after that one, which it does not take.
func TestIssuePRPushedAnsweredCarriesCapQuestion(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"guide Rename it in their file too.", "accept"} {
		t.Run(strings.Fields(cmd)[0], func(t *testing.T) {
			t.Parallel()
			c := newIssueCase(t, state.StatusSucceeded)
			asked := c.overCap(t)
			c.f.mu.Lock()
			c.f.reviews = []forge.Review{{ID: 940, Author: "maint", Trusted: true, State: "CHANGES_REQUESTED", Body: "Rename it."}}
			c.f.mu.Unlock()
			theirs := c.theirCommit(t)
			c.f.check("lint", "failure", "FAIL on their commit")
			if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated || len(c.eng.resumes) != 1 {
				t.Fatalf("pushed by someone else: %+v, %v, %d resumes\n%s", out, err, len(c.eng.resumes), c.out)
			}
			esc := c.f.marked("escalation")
			if len(esc) != 2 || !strings.Contains(esc[1].Body, "a reviewer asked for changes") || !strings.Contains(esc[1].Body, "The question agentloop asked before about the pull request ("+asked.URL+") still stands: a command given after it and before this comment answers it") {
				t.Fatalf("the question: %+v", esc)
			}
			c.f.say("maint", true, "/agentloop "+cmd)
			resumes := 1
			if cmd == "accept" {
				if out, err := c.run(t); err != nil || !out.Chosen || len(c.eng.resumes) != 1 || c.remoteHead(t) != theirs {
					t.Fatalf("the accept: %+v, %v, %d resumes\n%s", out, err, len(c.eng.resumes), c.out)
				}
				if st := c.state(t); st.Issue.Accepted != "" || st.Issue.Reviewed != 940 {
					t.Errorf("the run's record: %+v", st.Issue)
				}
			} else {
				resumes = 2
				if out, err := c.run(t); err != nil || out.Status != state.StatusSucceeded || len(c.eng.resumes) != 2 {
					t.Fatalf("the guide: %+v, %v, %d resumes\n%s", out, err, len(c.eng.resumes), c.out)
				}
				if g := c.eng.resumes[1].Guidance; !strings.Contains(g, "Rename it.") || !strings.Contains(g, "Rename it in their file too.") || strings.Contains(g, "lint") {
					t.Errorf("the continuation is given:\n%s", g)
				}
				if head := c.remoteHead(t); !gitx.IsAncestor(t.Context(), c.remote, theirs, head) {
					t.Errorf("their commit %s is not kept", theirs)
				}
				c.f.check("lint", "failure", "FAIL still")
			}
			if st := c.state(t); st.Issue.AskedFor != "pr/50/check_lint/1" || st.Issue.Carried != "" || st.Issue.Fixes["check lint"] != 1 {
				t.Errorf("the run's record: %+v", st.Issue)
			}
			for i := range 2 {
				if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated || len(c.eng.resumes) != resumes {
					t.Fatalf("look %d: %+v, %v, %d resumes: the push question's answer taken for the cap's\n%s", i, out, err, len(c.eng.resumes), c.out)
				}
			}
			if got := c.f.labelSet(); !slices.Equal(got, []string{"agentloop:needs-you"}) {
				t.Errorf("labels %v", got)
			}
			c.f.say("maint", true, "/agentloop accept")
			if out, err := c.run(t); err != nil || !out.Chosen {
				t.Errorf("the cap's question answered: %+v, %v\n%s", out, err, c.out)
			}
		})
	}
}

// elsewhere is the fake engine as a fleet is: a continuation goes on from
// the run's last checkpoint unless it is handed another ([issueStates.handOver]).
type elsewhere struct{ *fakeEngine }

func (e elsewhere) issueEngine(_ context.Context, root, _ string) (IssueEngine, issueStates, error) {
	return e.fakeEngine, elsewhereStates{localIssues{store: state.Store{Root: root}, out: io.Discard}}, nil
}

type elsewhereStates struct{ localIssues }

func (elsewhereStates) handOver(_ context.Context, _, _ string, _ *state.State, commit string) (string, error) {
	return commit, nil
}

// On a fleet a writer's guide to the question about commits someone else
// pushed goes on from their commits as a local run does: the continuation
// is handed the branch as it is with them ([ResumeOptions.From]).
func TestIssuePRPushedOnAFleetGoesOnFromTheirCommits(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusSucceeded)
	c.opened(t)
	run := func() (Outcome, error) {
		o := c.opts
		o.Plan = c.plan()
		pr := testProcess(c.repo)
		pr.Stderr = c.out
		return RunIssue(t.Context(), elsewhere{c.eng}, pr, o)
	}
	theirs := c.theirCommit(t)
	c.f.check("lint", "failure", "FAIL on their commit")
	if out, err := run(); err != nil || out.Status != state.StatusEscalated {
		t.Fatalf("pushed by someone else: %+v, %v\n%s", out, err, c.out)
	}
	if esc := c.f.marked("escalation"); len(esc) != 1 || !strings.Contains(esc[0].Body, "`/agentloop guide TEXT`: take the commits pushed to the branch") {
		t.Fatalf("the question: %+v", esc)
	}
	c.f.say("maint", true, "/agentloop guide Keep their file.")
	if _, err := run(); err != nil || len(c.eng.resumes) != 1 {
		t.Fatalf("a guide: %v, %d resumes\n%s", err, len(c.eng.resumes), c.out)
	}
	if r := c.eng.resumes[0]; r.From != theirs || !strings.Contains(r.Guidance, "Keep their file.") {
		t.Errorf("the continuation goes on from %q with %q, want their commit %s and the guide", r.From, r.Guidance, theirs)
	}
}

// A writer's guide for a question over a cap, kept while the question
// about commits someone else pushed waits, goes on with the guide that
// answers that one: the check's continuation from their commits, given
// both, on the new allowance the first gave.
func TestIssuePRPushedAnsweredAfterCapGuide(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusSucceeded)
	c.overCap(t)
	c.f.say("maint", true, "/agentloop guide Silence the rule.")
	theirs := c.theirCommit(t)
	c.f.check("lint", "failure", "FAIL on their commit")
	if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated || len(c.eng.resumes) != 1 {
		t.Fatalf("pushed by someone else: %+v, %v, %d resumes\n%s", out, err, len(c.eng.resumes), c.out)
	}
	c.f.say("maint", true, "/agentloop guide Keep their file.")
	if out, err := c.run(t); err != nil || out.Status != state.StatusSucceeded || len(c.eng.resumes) != 2 {
		t.Fatalf("the guide: %+v, %v, %d resumes\n%s", out, err, len(c.eng.resumes), c.out)
	}
	if g := c.eng.resumes[1].Guidance; !strings.Contains(g, `check "lint" failed`) || !strings.Contains(g, "Silence the rule.") || !strings.Contains(g, "Keep their file.") {
		t.Errorf("the continuation is given:\n%s", g)
	}
	if head := c.remoteHead(t); !gitx.IsAncestor(t.Context(), c.remote, theirs, head) {
		t.Errorf("their commit %s is not kept", theirs)
	}
	if st := c.state(t); st.Issue.AskedFor != "" || st.Issue.Carried != "" || st.Issue.Carrier != 0 || st.Issue.Granted["check lint"] != 1 || st.Issue.Fixes["check lint"] != 2 {
		t.Errorf("the run's record: %+v", st.Issue)
	}
	if got := c.f.labelSet(); !slices.Equal(got, []string{"agentloop:done"}) {
		t.Errorf("labels %v", got)
	}
}

// Someone pushes again while the question about their first push, which
// carries a question over a cap, waits: that question stands, and a
// writer's guide after it answers it (the review's continuation goes on
// from their last commit), never the cap's question it carries.
func TestIssuePRPushedAgainWhileAsked(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusSucceeded)
	c.overCap(t)
	c.f.mu.Lock()
	c.f.reviews = []forge.Review{{ID: 950, Author: "maint", Trusted: true, State: "CHANGES_REQUESTED", Body: "Rename it."}}
	c.f.mu.Unlock()
	c.theirCommit(t)
	c.f.check("lint", "failure", "FAIL on their commit")
	if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated || len(c.f.marked("escalation")) != 2 {
		t.Fatalf("pushed by someone else: %+v, %v\n%s", out, err, c.out)
	}
	c.f.say("maint", true, "/agentloop guide Rename it in their file too.")
	again := c.theirCommit(t)
	c.f.check("lint", "failure", "FAIL on their second commit")
	if out, err := c.run(t); err != nil || out.Status != state.StatusSucceeded || len(c.eng.resumes) != 2 || len(c.f.marked("escalation")) != 2 {
		t.Fatalf("pushed again, then the guide: %+v, %v, %d resumes, %d questions\n%s", out, err, len(c.eng.resumes), len(c.f.marked("escalation")), c.out)
	}
	if g := c.eng.resumes[1].Guidance; !strings.Contains(g, "Rename it.") || !strings.Contains(g, "Rename it in their file too.") || strings.Contains(g, "lint") {
		t.Errorf("the continuation is given:\n%s", g)
	}
	if head := c.remoteHead(t); !gitx.IsAncestor(t.Context(), c.remote, again, head) {
		t.Errorf("their last commit %s is not kept", again)
	}
	if st := c.state(t); st.Issue.AskedFor != "pr/50/check_lint/1" || st.Issue.Granted["check lint"] != 0 {
		t.Errorf("the run's record: %+v", st.Issue)
	}
}

// Someone pushes to the pull request's branch while a continuation runs:
// its push does not replace their commit (the work stays on the local
// branch), and the pull request is looked at again: the failure still there
// asks about their commits.
func TestIssuePRPushedDuringTheContinuation(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusSucceeded)
	c.opened(t)
	c.f.check("lint", "failure", "FAIL")
	var theirs string
	c.eng.during = func(func(func(*state.State))) {
		if theirs == "" {
			theirs = c.theirCommit(t)
			c.f.check("lint", "failure", "FAIL on their commit too")
		}
	}
	out, err := c.run(t)
	if err != nil || out.Status != state.StatusEscalated || len(c.eng.resumes) != 1 {
		t.Fatalf("a push during the continuation: %+v, %v, %d resumes\n%s", out, err, len(c.eng.resumes), c.out)
	}
	if head := c.remoteHead(t); head != theirs {
		t.Errorf("the remote branch is at %s, want their commit %s, pushed while the continuation ran", head, theirs)
	}
	if !strings.Contains(c.out.String(), "someone pushed to its branch agentloop/issue/7 while the continuation ran") {
		t.Errorf("said:\n%s", c.out)
	}
	if esc := c.f.marked("escalation"); len(esc) != 1 || !strings.Contains(esc[0].Body, "has commits agentloop's copy of it has not") {
		t.Errorf("the question: %+v", esc)
	}
	if st := c.state(t); st.Issue.Fixing != "" {
		t.Errorf("the continuation is still marked under way: %+v", st.Issue)
	}
}

// The question about someone's push carries a question over a cap; the
// failure that called for the push is mended, so the push question is moot:
// a writer's command after it answers the question it carried, which would
// otherwise wait for ever (found by a review).
func TestIssuePRPushQuestionMootCarriedAnswered(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusSucceeded)
	c.overCap(t) // lint over its cap, asked
	c.theirCommit(t)
	c.f.check("lint", "failure", "FAIL on their commit")
	c.f.check("test", "failure", "FAIL")
	if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated {
		t.Fatalf("pushed: %+v, %v\n%s", out, err, c.out)
	}
	if st := c.state(t); !strings.HasPrefix(st.Issue.AskedFor, "pr/50/pushed/") || st.Issue.Carried != "pr/50/check_lint/1" {
		t.Fatalf("the push question does not carry lint's: %+v", st.Issue)
	}
	c.f.check("test", "success", "")
	c.f.say("maint", true, "/agentloop accept")
	out, err := c.run(t)
	if err != nil || !out.Chosen {
		t.Fatalf("the accept after the moot question: %+v, %v: not taken\n%s", out, err, c.out)
	}
	if st := c.state(t); st.Issue.AskedFor != "" || st.Issue.Carried != "" || st.Issue.Accepted != "pr/50/check_lint/1" {
		t.Errorf("the run's record: %+v", st.Issue)
	}
	if got := c.f.labelSet(); !slices.Equal(got, []string{"agentloop:done"}) {
		t.Errorf("labels %v", got)
	}
}

// A writer's accept of a question over a cap, given before the question
// about someone's push that carries it was posted (it was not read by the
// look that posted it), settles that question alone: the push question
// still stands, not asked again (a guide given to it would be lost).
func TestIssuePRCarriedAnsweredPushQuestionStands(t *testing.T) {
	t.Parallel()
	c := newIssueCase(t, state.StatusSucceeded)
	q1 := c.overCap(t) // lint over its cap, asked
	c.theirCommit(t)
	c.f.check("lint", "failure", "FAIL on their commit")
	c.f.check("test", "failure", "FAIL")
	c.f.mu.Lock()
	c.f.nextID += 10 // room for a comment written while the look posted the push question
	c.f.mu.Unlock()
	if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated {
		t.Fatalf("pushed: %+v, %v\n%s", out, err, c.out)
	}
	st := c.state(t)
	if !strings.HasPrefix(st.Issue.AskedFor, "pr/50/pushed/") || st.Issue.Carrier == 0 {
		t.Fatalf("the push question does not carry lint's: %+v", st.Issue)
	}
	c.f.mu.Lock()
	c.f.comments = append(c.f.comments, forge.Comment{ID: q1.ID + 5, Author: "maint", Trusted: true, Body: "/agentloop accept"})
	c.f.mu.Unlock()
	if out, err := c.run(t); err != nil || !out.Chosen {
		t.Fatalf("the accept of lint's question: %+v, %v\n%s", out, err, c.out)
	}
	asked := len(c.f.marked("escalation"))
	c.out.Reset()
	if out, err := c.run(t); err != nil || out.Status != state.StatusEscalated || len(c.f.marked("escalation")) != asked {
		t.Errorf("after the accept: %+v, %v, %d questions (were %d): the push question asked again\n%s", out, err, len(c.f.marked("escalation")), asked, c.out)
	}
	if st := c.state(t); !strings.HasPrefix(st.Issue.AskedFor, "pr/50/pushed/") || st.Issue.Carried != "" || st.Issue.Accepted != "pr/50/check_lint/1" {
		t.Errorf("the run's record: %+v", st.Issue)
	}
	if got := c.f.labelSet(); !slices.Equal(got, []string{"agentloop:needs-you"}) {
		t.Errorf("labels %v", got)
	}
}
