package app

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/state"
)

// The classes of failure a continuation answers, each with a cap of its
// own ([config.IssueCaps]): a failing check counts by its name.
const (
	fixCheck    = "check"
	fixReview   = "review"
	fixConflict = "conflict"
)

// owning reports whether st is of an issue's run whose pull request is
// open as far as agentloop knows, with no continuation of its under way:
// run --issue reads the pull request and does what it asks ([issueRun.own]).
func owning(st *state.State) bool {
	if st == nil || st.Issue == nil || st.Issue.PR == 0 || st.Issue.Fixing != "" {
		return false
	}
	return st.Status == state.StatusSucceeded || st.Status == state.StatusCompleted
}

// prEvidence is what a pull request asks of its run: the class and key of
// the failure (key counts for the cap), and the guidance the continuation
// is given.
type prEvidence struct {
	class, key string
	what       string // for a person: "the check lint failed"
	guidance   string
	// reviewed and commented are the newest review and thread comment in
	// guidance (their ids are of two kinds).
	reviewed, commented int64
}

// own reads the pull request the issue's run opened and does what it finds:
// merged or closed, the run is over for good (its worktree and local
// branch removed when nothing is lost); a merge conflict, a failing check
// on its head or a writer's request for changes, a continuation of the run
// on its branch with that as guidance, its spend and limits the run's
// (bounded too by a cap for each class of failure, over which the issue
// asks a person); else nothing to do. goOn says a continuation ran: its end
// is for [issueRun.after] (the push and the pull request's new receipt).
func (r *issueRun) own(ctx context.Context, st *state.State) (out Outcome, goOn bool, err error) {
	link := *st.Issue
	r.showOwned(st)
	if link.Ended == endedAborted {
		fmt.Fprintf(r.out, "Issue %s: pull request %s: agentloop's work on it was stopped (/agentloop abort): nothing to do\n", r.ref, link.PRURL)
		return Outcome{Status: st.Status}, false, nil
	}
	if link.Ended != "" {
		return r.ended(ctx, st, forge.PRState(link.Ended), "")
	}
	ps, err := r.f.PRStatus(ctx, r.ref.Repo, link.PR)
	if err != nil {
		return Outcome{}, false, forgeFailure(err, r.ref.Host, fmt.Sprintf("read pull request #%d of issue %s", link.PR, r.ref), r.kept())
	}
	switch ps.PR.State {
	case forge.PRMerged, forge.PRClosed:
		return r.ended(ctx, st, ps.PR.State, ps.PR.HeadSHA)
	}
	evs := r.evidence(ps, link)
	// The first failure, by class, that is under its cap or whose question
	// over it a writer answered with guidance is acted on; one over its cap
	// (asked about, or accepted as it is) starves none after it.
	var (
		ev          prEvidence
		done, limit int
		chosen      bool
		guided      issueAnswer
		guidedKey   string
		capped      *prEvidence // over its cap, neither accepted nor answered: the one asked about, else the first
		cappedDone  int
		waiting     string // the question over a cap asked, of a failure still there
		accepted    []string
	)
	// The questions accepted of failures still there, each at the count it
	// was accepted at, and the question asked of one still there. One
	// mended is forgotten: when it comes back, it is a new question.
	var stillAccepted []string
	for _, e := range evs {
		k := capKey(link.PR, e.key, link.Fixes[e.key])
		if slices.Contains(strings.Fields(link.Accepted), k) {
			stillAccepted = append(stillAccepted, k)
		}
		if r.asks(link, k) {
			waiting = k
		}
	}
	if keep := strings.Join(stillAccepted, " "); keep != link.Accepted {
		if err := r.record(ctx, func(i *state.Issue) { i.Accepted = keep }); err != nil {
			return Outcome{}, false, err
		}
	}
	for _, e := range evs {
		n, l := link.Fixes[e.key], r.capOf(e.class)+link.Granted[e.key]*r.allowance(e.class) // each writer's guidance over the cap gave a new allowance
		// Accepted as it is: over its cap, or with commits someone else pushed.
		if slices.Contains(stillAccepted, capKey(link.PR, e.key, n)) {
			accepted = append(accepted, e.what)
			continue
		}
		if n < l {
			ev, done, limit, chosen = e, n, l, true
			break
		}
		a, err := r.capAnswer(ctx, link, e, n)
		switch {
		case err != nil:
			return Outcome{}, false, err
		case a.kind == "":
			// The question that waits is waited for; else the first over its cap is asked.
			if capped == nil || capKey(link.PR, e.key, n) == waiting {
				capped, cappedDone = &e, n
			}
			continue
		case a.kind != IssueGuide:
			return r.capSettled(ctx, st, e, n, a)
		}
		ev, done, limit, chosen, guided, guidedKey = e, n, l+r.allowance(e.class), true, a, capKey(link.PR, e.key, n)
		break
	}
	if !chosen {
		if link.Carried != "" && strings.HasPrefix(link.AskedFor, fmt.Sprintf("pr/%d/pushed/", link.PR)) {
			// The question about someone's push is moot: no failure calls
			// for a push now. The question it carried is the one asked, and
			// a writer's command after it answers it, one given to the moot
			// question included (else nothing would ever be heard).
			if err := r.record(ctx, func(i *state.Issue) { i.AskedFor, i.Carried, i.Carrier = i.Carried, "", 0 }); err != nil {
				return Outcome{}, false, err
			}
			st.Issue.AskedFor, st.Issue.Carried, st.Issue.Carrier = link.Carried, "", 0
			return r.own(ctx, st)
		}
		if capped != nil {
			return r.overCap(ctx, st, *capped, cappedDone)
		}
		return r.idle(ctx, st, waiting, accepted)
	}
	var answered string
	if guided.kind != "" {
		answered = fmt.Sprintf("\n\nAfter %d %s for it, agentloop asked on the issue; %s, who may write to the repository, answered with this guidance:\n%s\n", done, pluralize(done, "continuation"), guided.by, guided.guidance)
		ev.guidance += answered
	}
	var took issueAnswer // a writer's guide to go on from the commits someone else pushed to the branch
	if head := ps.PR.HeadSHA; head != "" {
		if tip := gitx.CommitOf(ctx, r.repo, "refs/heads/"+r.branch); tip != head && !gitx.IsAncestor(ctx, r.repo, head, tip) {
			// Someone pushed to the branch: agentloop's push would replace their commits.
			var out Outcome
			if took, out, err = r.pushed(ctx, st, ev, done, head, cmp.Or(waiting, guidedKey), guided); took.kind == "" || err != nil {
				return out, false, err
			}
			theirs := fmt.Sprintf("\n\nSomeone else pushed commits to this branch; agentloop asked on the issue, and %s, who may write to the repository, answered: go on from their commits (this branch now has them), with this guidance:\n%s\n", took.by, took.guidance)
			ev.guidance += theirs
			answered += theirs
		}
	}
	if err := r.intake(ctx); err != nil { // the pull request's title, when it is updated
		return Outcome{}, false, err
	}
	if _, err := os.Stat(r.wt); err != nil {
		if err := graph.AddTaskWorkTree(ctx, r.repo, r.store.Root, IssueGraph, strconv.Itoa(r.ref.Number), r.branch); err != nil {
			return Outcome{}, false, fmt.Errorf("issue %s: %w", r.ref, err)
		}
	}
	var (
		conflicts []string
		from      string // the commit the run goes on from, where its engine needs it said
		moved     bool   // the branch was moved here: their commits taken, or the base merged
	)
	if took.kind != "" {
		if err := r.adopt(ctx, ps.PR.HeadSHA); err != nil {
			return Outcome{}, false, err
		}
		moved = true
	}
	if ev.class == fixConflict {
		if conflicts, err = r.mergeBase(ctx, ps.PR.Base); err != nil {
			return Outcome{}, false, err
		}
		ev.guidance = conflictGuidance(r.remote+"/"+ps.PR.Base, conflicts) + answered
		moved = true
	}
	if moved {
		if from, err = r.states.handOver(r.gitAuth(ctx), r.repo, r.remote, st, gitx.CommitOf(ctx, r.wt, "HEAD")); err != nil {
			return Outcome{}, false, fmt.Errorf("issue %s: hand its branch %s as it is now to run %s: %w%s", r.ref, r.branch, r.name, err, r.kept())
		}
	}
	if err := r.record(ctx, func(i *state.Issue) {
		i.Conflicts = conflicts
		if i.Fixes == nil {
			i.Fixes = map[string]int{}
		}
		if guided.kind != "" {
			if i.Granted == nil {
				i.Granted = map[string]int{}
			}
			i.Granted[ev.key]++
		}
		switch {
		case guided.kind != "" || strings.HasPrefix(i.AskedFor, "pr/") && waiting == "":
			// Answered, or asked of what is no longer there (a failure mended,
			// the branch no longer pushed to by someone else): not waited for.
			i.Asked, i.AskedFor, i.Carried, i.Carrier = 0, "", "", 0
		case i.Carried != "":
			// The question that carried it is answered by the push going on:
			// it waits again, for a command after the answer that did so.
			i.AskedFor, i.Carried, i.Carrier = i.Carried, "", 0
			if took.kind != "" {
				i.Asked = took.id
			}
		}
		i.Fixes[ev.key]++
		i.Fixing = ev.key
		i.Reviewed, i.Commented = max(i.Reviewed, ev.reviewed), max(i.Commented, ev.commented)
	}); err != nil {
		return Outcome{}, false, err
	}
	remove, allowance := []string{r.labels.Done}, ""
	if guided.kind != "" || took.kind != "" && waiting == "" {
		remove = append(remove, r.labels.NeedsYou)
	}
	if guided.kind != "" {
		allowance = fmt.Sprintf(", a new allowance on %s's guidance", guided.by)
	}
	if took.kind != "" {
		allowance += fmt.Sprintf(", from the commits pushed to it, on %s's guidance", took.by)
	}
	if err := r.label(ctx, []string{r.labels.Running}, remove); err != nil {
		return Outcome{}, false, err
	}
	n := done + 1
	r.shown.state, r.shown.claim.State = "running", "running"
	r.shown.note = fmt.Sprintf("On the pull request, %s: continuation %d of at most %d for it%s.", ev.what, n, limit, allowance)
	r.shown.ignored = r.ignored
	if err := r.edit(ctx); err != nil {
		return Outcome{}, false, err
	}
	fmt.Fprintf(r.out, "Issue %s: pull request %s: %s; run %s goes on on its branch %s (continuation %d of at most %d for it%s)\n", r.ref, link.PRURL, ev.what, r.name, r.branch, n, limit, allowance)
	ro := ResumeOptions{Server: r.o.Server, Configure: r.o.Configure, Verbose: r.o.Verbose, JSON: r.o.JSON, Guidance: ev.guidance, Reopen: true, From: from}
	out, err = r.following(ctx, func(ctx context.Context) (Outcome, error) { return r.eng.Resume(ctx, r.name, ro) })
	return out, err == nil && out.Status != "", err
}
