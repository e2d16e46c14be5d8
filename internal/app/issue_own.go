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
		if n < l {
			ev, done, limit, chosen = e, n, l, true
			break
		}
		if slices.Contains(stillAccepted, capKey(link.PR, e.key, n)) {
			accepted = append(accepted, e.what)
			continue
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
	if head := ps.PR.HeadSHA; head != "" {
		if tip := gitx.CommitOf(ctx, r.repo, "refs/heads/"+r.branch); tip != head && !gitx.IsAncestor(ctx, r.repo, head, tip) {
			// Someone pushed to the branch: agentloop's push would replace their commits.
			body := fmt.Sprintf("**agentloop needs you.** On the pull request %s, %s, but its branch `%s` has commits agentloop's copy of it has not (someone pushed to it), and a continuation's push would replace them. agentloop does not push over them.\n\n"+
				"The options:\n- fix it yourself on the branch `%s`\n- close the pull request; a new run of the issue starts afresh\n", link.PRURL, ev.what, r.branch, r.branch)
			say := fmt.Sprintf("its branch %s has commits pushed by someone else, which agentloop does not push over", r.branch)
			carry := cmp.Or(waiting, guidedKey)
			if guided.kind != "" {
				body += fmt.Sprintf("\n%s's guidance for the question before is kept: agentloop goes on with it once it can push to the branch again.\n", guided.by)
				say += fmt.Sprintf("; %s's guidance is kept for then", guided.by)
			}
			body += r.carried(carry)
			return r.askPR(ctx, st, fmt.Sprintf("pr/%d/pushed/%s", link.PR, head), carry, body, ev.what+"; "+say)
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
		from      string // the merge the run goes on from, where its engine needs it said
	)
	if ev.class == fixConflict {
		if conflicts, err = r.mergeBase(ctx, ps.PR.Base); err != nil {
			return Outcome{}, false, err
		}
		if from, err = r.states.handOver(r.gitAuth(ctx), r.repo, r.remote, st, gitx.CommitOf(ctx, r.wt, "HEAD")); err != nil {
			return Outcome{}, false, fmt.Errorf("issue %s: hand the merge of %s/%s on its branch %s to run %s: %w%s", r.ref, r.remote, ps.PR.Base, r.branch, r.name, err, r.kept())
		}
		ev.guidance = conflictGuidance(r.remote+"/"+ps.PR.Base, conflicts) + answered
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
			i.Asked, i.AskedFor, i.Carried = 0, "", ""
		case i.Carried != "":
			// The question that carried it is answered by the push going on.
			i.AskedFor, i.Carried = i.Carried, ""
		}
		i.Fixes[ev.key]++
		i.Fixing = ev.key
		i.Reviewed, i.Commented = max(i.Reviewed, ev.reviewed), max(i.Commented, ev.commented)
	}); err != nil {
		return Outcome{}, false, err
	}
	remove, allowance := []string{r.labels.Done}, ""
	if guided.kind != "" {
		remove = append(remove, r.labels.NeedsYou)
		allowance = fmt.Sprintf(", a new allowance on %s's guidance", guided.by)
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
