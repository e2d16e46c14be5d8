package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
)

// publish pushes the branch of the run that succeeded and opens (or updates)
// its pull request, its body the run's receipt; the labels say it is done,
// and the progress comment links it. Each step may be done again: a
// restart after any of them goes on without a second pull request.
func (r *issueRun) publish(ctx context.Context, st *state.State, instead *Outcome) error {
	link := st.Issue
	gctx := r.gitAuth(ctx)
	if _, err := os.Stat(r.wt); err == nil {
		if err := r.states.reach(gctx, r.repo, r.remote, r.wt, st); err != nil {
			return fmt.Errorf("issue %s: bring the run's work onto its branch %s: %w%s", r.ref, r.branch, err, r.kept())
		}
		msg := fmt.Sprintf("agentloop: issue #%d: %s", r.ref.Number, firstLine(r.issue.Title))
		if err := gitx.Commit(ctx, r.wt, msg); err != nil {
			return fmt.Errorf("issue %s: commit the run's work on its branch %s: %w%s", r.ref, r.branch, err, r.kept())
		}
	}
	lease := "" // a continuation's push replaces the pull request's head as read now, and nothing pushed since
	if link.PR != 0 {
		// A continuation's: its pull request may have been merged or closed
		// while it ran, and a push then would open a second one. Its work
		// stays committed on the branch, which is kept.
		ps, err := r.f.PRStatus(ctx, r.ref.Repo, link.PR)
		if err != nil {
			return forgeFailure(err, r.ref.Host, fmt.Sprintf("read pull request #%d of issue %s before pushing to it", link.PR, r.ref), r.kept())
		}
		if s := ps.PR.State; s == forge.PRMerged || s == forge.PRClosed {
			_, _, err := r.ended(ctx, st, s, ps.PR.HeadSHA)
			return err
		}
		lease = ps.PR.HeadSHA
		if lease != "" && !gitx.IsAncestor(ctx, r.repo, lease, gitx.CommitOf(ctx, r.repo, "refs/heads/"+r.branch)) {
			return r.pushedMeanwhile(ctx, st, instead)
		}
	}
	if left := gitx.ConflictMarkers(r.wt, link.Conflicts); len(left) > 0 {
		return fmt.Errorf("issue %s: %s still %s conflict markers of the merge agentloop made for its pull request: not pushed; resolve them in %s, then run the same command again%s",
			r.ref, strings.Join(left, ", "), map[bool]string{true: "holds", false: "hold"}[len(left) == 1], RelPath(r.repo, r.wt), r.kept())
	}
	push := gitx.ShareBranch(gctx, r.repo, r.remote, r.branch)
	if lease != "" {
		push = gitx.ShareBranchOver(gctx, r.repo, r.remote, r.branch, lease)
	}
	if errors.Is(push, gitx.ErrBranchMoved) {
		return r.pushedMeanwhile(ctx, st, instead)
	}
	if push != nil {
		return r.pushRefused(ctx, st, push)
	}
	rec, err := r.eng.Report(ctx, st.Name, st.RunID, 0)
	if err != nil {
		return fmt.Errorf("issue %s: the pull request's body from the records of run %s: %w%s", r.ref, st.Name, err, r.kept())
	}
	body := report.PRBody(rec, report.PROptions{Closes: r.ref.Number, Redactor: r.o.Plan.Secrets(), ReportFlags: r.states.flags(r.o.Server)})
	base := link.Base
	if base == "" {
		return fmt.Errorf("issue %s: the branch the pull request goes into is not known (the run started on a detached HEAD); open it yourself from %s%s", r.ref, r.branch, r.kept())
	}
	pr, err := r.f.OpenPR(ctx, forge.PRSpec{Repo: r.ref.Repo, Head: r.branch, Base: base, Title: firstLine(r.issue.Title), Body: body})
	if err != nil {
		return forgeFailure(err, r.ref.Host, fmt.Sprintf("open the pull request from %s into %s", r.branch, base), r.kept())
	}
	if err := r.record(ctx, func(i *state.Issue) { i.PR, i.PRURL, i.Fixing, i.Conflicts = pr.Number, pr.URL, "", nil }); err != nil {
		return err
	}
	add, remove, shown, note := r.labels.Done, r.labels.NeedsYou, "done", ""
	if strings.HasPrefix(link.AskedFor, "pr/") {
		// A question over another failure's cap still waits for a person.
		add, remove, shown, note = r.labels.NeedsYou, r.labels.Done, "needs you", "Needs you: "+cmp.Or(r.askedURL, "the question above")
	}
	if err := r.label(ctx, []string{add}, []string{r.labels.Running, remove, r.labels.Queued}); err != nil {
		return err
	}
	r.shown.state, r.shown.claim.State, r.shown.pr, r.shown.note = shown, "done", pr.URL, note
	if err := r.edit(ctx); err != nil {
		return err
	}
	fmt.Fprintf(r.out, "Issue %s: pull request %s\n", r.ref, pr.URL)
	return nil
}

// pushRefused says on the issue and on screen that the branch could not be
// pushed: the work stays on it, the labels ask for a person. The push's own
// error (which may name the remote's URL) is said on screen only.
func (r *issueRun) pushRefused(ctx context.Context, st *state.State, pushErr error) error {
	fix := "make the remote take it (your access, a branch protection)"
	if why := r.denied(ctx, pushErr); why != "" {
		fix = why
	}
	err := fmt.Errorf("issue %s: push the branch %s to the remote %s: %w; the run's work is kept on the branch %s (worktree %s): %s, then run the same command again",
		r.ref, r.branch, r.remote, pushErr, r.branch, RelPath(r.repo, r.wt), fix)
	body := fmt.Sprintf("**agentloop needs you.** Run `%s` succeeded, but its branch `%s` could not be pushed to the repository, so no pull request is open. "+
		"The work is kept on the branch where agentloop ran; the output there says why the push was refused. Once it can push, running it again opens the pull request.\n", st.Name, r.branch)
	_, url, cerr := r.postOnce(ctx, "push", st.RunID, body)
	lerr := r.label(ctx, []string{r.labels.NeedsYou}, []string{r.labels.Running})
	if cerr == nil {
		r.shown.note = "The branch could not be pushed: " + url
	}
	r.shown.state, r.shown.claim.State = "needs you: the push was refused", "stopped"
	if eerr := r.edit(ctx); eerr != nil || cerr != nil || lerr != nil {
		fmt.Fprintf(r.out, "warning: %v\n", errors.Join(cerr, lerr, eerr))
	}
	return err
}

// pushedMeanwhile: someone pushed to the pull request's branch while the
// continuation of st ran, and its push would replace their commits: its
// work stays on the local branch, unpushed, the continuation is over, and
// the pull request is looked at again ([issueRun.own]), which asks about
// their commits when a failure still calls for a continuation.
func (r *issueRun) pushedMeanwhile(ctx context.Context, st *state.State, instead *Outcome) error {
	fmt.Fprintf(r.out, "Issue %s: someone pushed to its branch %s while the continuation ran: agentloop's work stays on the local branch, not pushed over theirs\n", r.ref, r.branch)
	if err := r.record(ctx, func(i *state.Issue) { i.Fixing = "" }); err != nil {
		return err
	}
	st.Issue.Fixing = ""
	out, _, err := r.own(ctx, st)
	*instead = out
	return err
}
