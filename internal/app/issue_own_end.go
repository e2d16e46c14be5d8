package app

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/state"
)

// capKey names the question a cap asks: the pull request, the failure
// and how many continuations were pushed for it.
func capKey(pr int, key string, n int) string {
	return fmt.Sprintf("pr/%d/%s/%d", pr, strings.ReplaceAll(key, " ", "_"), n)
}

// overCap asks a person on the issue, once for each failure and count,
// instead of pushing again: the labels say it needs a person. A writer
// answers it as an escalation ([issueRun.capAnswer]).
func (r *issueRun) overCap(ctx context.Context, st *state.State, ev prEvidence, n int) (Outcome, bool, error) {
	each := r.allowance(ev.class)
	capped := fmt.Sprintf("the cap, `issues: {caps: {%s: %d}}`", ev.class, r.capOf(ev.class))
	if g := st.Issue.Granted[ev.key]; g > 0 {
		capped += fmt.Sprintf(", and the new %s writers' guidance gave", pluralize(g, "allowance"))
	}
	body := fmt.Sprintf("**agentloop needs you.** On the pull request %s, %s, after %d %s pushed for it (%s). agentloop does not push again for it.\n\n"+
		"The options:\n- fix it yourself on the branch `%s`\n- raise the cap in `agentloop.yaml` and run `agentloop run --issue %s` again\n- close the pull request\n\n",
		st.Issue.PRURL, ev.what, n, pluralize(n, "continuation"), capped, r.branch, r.ref) +
		r.prCommands(fmt.Sprintf("go on with TEXT as guidance, a new allowance of %d %s for it", each, pluralize(each, "continuation")))
	say := fmt.Sprintf("the cap of %d %s for it is reached", n, pluralize(n, "continuation"))
	return r.askPR(ctx, st, capKey(st.Issue.PR, ev.key, n), "", body, ev.what+", and "+say)
}

// idle is a look at the pull request that finds nothing to do: no failure,
// or only failures a writer accepted as they are (accepted: what they
// are). A question over a cap, or an acceptance, of a failure no longer
// there is forgotten ([issueRun.own] kept only the acceptances of those
// still there; waiting is the question of one still there): the labels
// say done again.
func (r *issueRun) idle(ctx context.Context, st *state.State, waiting string, accepted []string) (Outcome, bool, error) {
	link := *st.Issue
	if gone := strings.HasPrefix(link.AskedFor, "pr/") && waiting == ""; gone || link.Accepted != "" && len(accepted) == 0 {
		if err := r.label(ctx, []string{r.labels.Done}, []string{r.labels.NeedsYou}); err != nil {
			return Outcome{}, false, err
		}
		if gone {
			if err := r.record(ctx, func(i *state.Issue) { i.Asked, i.AskedFor, i.Carried, i.Carrier = 0, "", "", 0 }); err != nil {
				return Outcome{}, false, err
			}
		}
		r.shown.note = ""
		if err := r.edit(ctx); err != nil {
			return Outcome{}, false, err
		}
	}
	if len(accepted) > 0 {
		fmt.Fprintf(r.out, "Issue %s: pull request %s: %s, and a person accepted it as it is: nothing to do\n", r.ref, link.PRURL, strings.Join(accepted, "; "))
	} else {
		fmt.Fprintf(r.out, "Issue %s: pull request %s: no check failing, no change asked, no conflict: nothing to do\n", r.ref, link.PRURL)
	}
	return Outcome{Status: st.Status}, false, nil
}

// capAnswer is a writer's answer to the question the cap of the failure
// ev asked (kind "": none, or not asked yet); the commands of people who
// cannot write are counted ([issueRun.answer]). Serve having found the
// issue changed by no one but agentloop since it last read it, none is
// read: a person's comment takes the issue again. A question carried by
// another may have its answer read already, waiting for the other: read.
func (r *issueRun) capAnswer(ctx context.Context, link state.Issue, ev prEvidence, n int) (issueAnswer, error) {
	if !r.asks(link, capKey(link.PR, ev.key, n)) || r.o.unchanged && link.Carried == "" {
		return issueAnswer{}, nil
	}
	a, _, err := r.answer(ctx, link)
	return a, err
}

// asks reports whether the question named key waits for its answer on
// the issue.
func (r *issueRun) asks(link state.Issue, key string) bool {
	return link.AskedFor == key || link.Carried == key
}

// capSettled does what a writer's /agentloop accept or abort asks of a
// pull request over a cap, or of one whose branch someone else pushed to
// ([issueRun.pushed]): accept leaves it as it is, the failure ev (after n
// continuations) not asked about or pushed for again (until it is
// mended); abort ends agentloop's work on the pull request, which stays
// open for people. A question over another failure's cap that the
// answered one carried waits again, for a command after this answer.
func (r *issueRun) capSettled(ctx context.Context, st *state.State, ev prEvidence, n int, a issueAnswer) (Outcome, bool, error) {
	key := capKey(st.Issue.PR, ev.key, n)
	again := !a.abort && st.Issue.Carried != "" && st.Issue.Carried != key
	// The answered question was carried by one asked after it (the
	// question about someone's push): that one still waits, for a command
	// after its own comment.
	carrier := !a.abort && st.Issue.Carried == key && st.Issue.AskedFor != "" && st.Issue.AskedFor != key
	add, remove := []string{r.labels.Done}, []string{r.labels.NeedsYou, r.labels.Running}
	note := fmt.Sprintf("%s accepted the pull request as it is (%s): agentloop pushes nothing more for it.", a.by, ev.what)
	if a.abort {
		add, note = nil, fmt.Sprintf("%s stopped agentloop's work on the pull request (/agentloop abort): it is left as it is, for people.", a.by)
		r.shown.state, r.shown.claim.State = "stopped", "stopped"
	}
	switch {
	case again:
		add, remove, note = []string{r.labels.NeedsYou}, []string{r.labels.Done, r.labels.Running}, note+" The question asked before still waits for a person."
		r.shown.state = "needs you"
	case carrier:
		add, remove, note = []string{r.labels.NeedsYou}, []string{r.labels.Done, r.labels.Running}, note+" The question asked after it still waits for a person."
		r.shown.state = "needs you"
	}
	if err := r.record(ctx, func(i *state.Issue) {
		switch {
		case carrier:
			i.Asked, i.Carried, i.Carrier = cmp.Or(i.Carrier, i.Asked), "", 0
		case again:
			i.Asked, i.AskedFor, i.Carried, i.Carrier = a.id, st.Issue.Carried, "", 0
		default:
			i.Asked, i.AskedFor, i.Carried, i.Carrier = 0, "", "", 0
		}
		switch {
		case a.abort:
			i.Ended = endedAborted
		case ev.class == fixReview:
			// The reviews asked about are settled as they are: one newer
			// is a change asked anew, whatever the count.
			i.Reviewed, i.Commented = max(i.Reviewed, ev.reviewed), max(i.Commented, ev.commented)
		default:
			i.Accepted = strings.TrimSpace(i.Accepted + " " + key)
		}
	}); err != nil {
		return Outcome{}, false, err
	}
	if err := r.label(ctx, add, remove); err != nil {
		return Outcome{}, false, err
	}
	r.shown.note, r.shown.ignored = note, r.ignored
	if err := r.edit(ctx); err != nil {
		return Outcome{}, false, err
	}
	fmt.Fprintf(r.out, "Issue %s: pull request %s: %s answered the question (%s): %s\n", r.ref, st.Issue.PRURL, a.by, a.kind, note)
	out := Outcome{Status: st.Status, Chosen: true}
	if a.abort {
		out.Status = state.StatusAborted
	}
	return out, false, nil
}

// endedAborted is [state.Issue.Ended] of a pull request a writer's
// /agentloop abort took from agentloop.
const endedAborted = "aborted"

// ended ends the issue's run for good once its pull request is merged or
// closed: the progress comment says so (once), the labels say done, and
// its worktree and local branch are removed, unless that would lose work
// (a worktree with changes of its own, a branch with commits the forge has
// not got): those are kept, and said.
func (r *issueRun) ended(ctx context.Context, st *state.State, how forge.PRState, head string) (Outcome, bool, error) {
	first := st.Issue.Ended == ""
	if first {
		// A continuation under way is over too: its work, not pushed, is kept on the branch.
		if err := r.record(ctx, func(i *state.Issue) { i.Ended, i.Fixing, i.Conflicts = string(how), "", nil }); err != nil {
			return Outcome{}, false, err
		}
	}
	kept := r.cleanUp(ctx, head)
	if first {
		if err := r.label(ctx, []string{r.labels.Done}, []string{r.labels.Running, r.labels.NeedsYou, r.labels.Queued}); err != nil {
			return Outcome{}, false, err
		}
		r.shown.note = "The pull request was merged: the run is over."
		if how == forge.PRClosed {
			r.shown.note = "The pull request was closed without being merged: the run is over; its branch stays on the repository."
		}
		if kept != "" {
			r.shown.note += " " + kept
		}
		if err := r.edit(ctx); err != nil {
			return Outcome{}, false, err
		}
	}
	word := "merged"
	if how == forge.PRClosed {
		word = "closed without being merged"
	}
	fmt.Fprintf(r.out, "Issue %s: pull request %s was %s: the run %s is over", r.ref, st.Issue.PRURL, word, r.name)
	if kept != "" {
		fmt.Fprintf(r.out, "; %s", kept)
	}
	fmt.Fprintln(r.out)
	return Outcome{Status: st.Status}, false, nil
}

// cleanUp removes the run's worktree and local branch as clean removes a
// task's, keeping what holds work found nowhere else: a worktree with
// changes (git refuses to remove it), a branch whose tip is neither the
// pull request's head (head, as the forge has it) nor merged here. What
// is kept is said.
func (r *issueRun) cleanUp(ctx context.Context, head string) (kept string) {
	var keep []string
	if _, err := os.Stat(r.wt); err == nil {
		if err := gitx.RemoveWorktree(ctx, r.repo, r.wt, false); err != nil {
			keep = append(keep, fmt.Sprintf("its worktree %s has changes of its own and is kept ('git worktree remove --force %s' drops them)", RelPath(r.repo, r.wt), RelPath(r.repo, r.wt)))
		}
	}
	if len(keep) == 0 {
		tip := gitx.CommitOf(ctx, r.repo, "refs/heads/"+r.branch)
		switch {
		case tip == "":
		case tip == head || gitx.IsMerged(ctx, r.repo, r.branch):
			if err := gitx.DeleteBranch(ctx, r.repo, r.branch); err != nil {
				keep = append(keep, fmt.Sprintf("its branch %s could not be removed: %v", r.branch, err))
			}
		default:
			keep = append(keep, fmt.Sprintf("its branch %s has commits the pull request has not and is kept ('git branch -D %s' deletes it)", r.branch, r.branch))
		}
	}
	_ = gitx.PruneWorktrees(ctx, r.repo)
	return strings.Join(keep, "; ")
}

// mergeBase merges the pull request's base, fetched from the remote, into
// the run's branch in its worktree: agentloop makes the merge commit
// itself, because the agent cannot (the guard puts back a branch the agent
// moves). A conflict is committed with its markers in, for the agent to
// resolve; the branch is not pushed while a marker is left ([issueRun.publish]).
// The conflicting files are returned.
func (r *issueRun) mergeBase(ctx context.Context, base string) ([]string, error) {
	if err := gitx.FetchAll(r.gitAuth(ctx), r.repo, r.remote); err != nil {
		fix := "check the remote"
		if why := r.denied(ctx, err); why != "" {
			fix = why
		}
		return nil, fmt.Errorf("issue %s: its pull request conflicts with %s: %w; %s, then run the same command again%s", r.ref, base, err, fix, r.kept())
	}
	rev := r.remote + "/" + base
	files, err := gitx.MergeConflicted(ctx, r.wt, rev, fmt.Sprintf("agentloop: issue #%d: merge %s", r.ref.Number, rev))
	if err != nil {
		return nil, fmt.Errorf("issue %s: merge %s into its branch %s for its conflicting pull request: %w%s", r.ref, rev, r.branch, err, r.kept())
	}
	return files, nil
}

// conflictGuidance is what the agent is told of the merge agentloop made.
func conflictGuidance(rev string, files []string) string {
	if len(files) == 0 {
		return fmt.Sprintf("The pull request of this branch conflicted with its base; agentloop merged %s into this branch and the merge went through cleanly. Check that the work still holds with what came in, and fix what does not.", rev)
	}
	return fmt.Sprintf("The pull request of this branch conflicted with its base; agentloop merged %s into this branch and committed the conflicts as git left them. Resolve them in %s: keep both sides' intent and remove every conflict marker (<<<<<<<, =======, >>>>>>>). The branch is not pushed while a marker is left.", rev, strings.Join(files, ", "))
}
