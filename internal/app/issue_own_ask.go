package app

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/state"
)

// pushed is the question about the commits someone else pushed to the pull
// request's branch (head, the forge's, which agentloop's copy of the branch
// has not), which the continuation for ev, after n for it, would push over:
// asked once for head (one asked of commits pushed before, still waiting,
// stands for it), carrying the question over a cap still open (carry;
// guided: a writer's guide for it, kept), answered by a writer's command
// after it. A guide goes on from their commits (took: the answer, for
// [issueRun.adopt]); accept and abort settle ev as they settle a question
// over its cap ([issueRun.capSettled]). A run on a fleet goes on from their
// commits as a local one does ([issueStates.handOver]).
func (r *issueRun) pushed(ctx context.Context, st *state.State, ev prEvidence, n int, head, carry string, guided issueAnswer) (took issueAnswer, out Outcome, err error) {
	link := *st.Issue
	key, asked := fmt.Sprintf("pr/%d/pushed/%s", link.PR, head), fmt.Sprintf("pr/%d/pushed/", link.PR)
	if strings.HasPrefix(link.AskedFor, asked) {
		key = link.AskedFor // the question asked still waits, whatever they pushed since: one answer
	}
	if link.AskedFor == key && !r.o.unchanged {
		after := link.Asked
		if link.Carried != "" {
			after = link.Carrier
		}
		a, _, err := r.command(ctx, after, 0)
		switch {
		case err != nil:
			return issueAnswer{}, Outcome{}, err
		case a.kind == IssueGuide:
			return a, Outcome{}, nil
		case a.kind != "":
			out, _, err := r.capSettled(ctx, st, ev, n, a)
			return issueAnswer{}, out, err
		}
	}
	body := fmt.Sprintf("**agentloop needs you.** On the pull request %s, %s, but its branch `%s` has commits agentloop's copy of it has not (someone pushed to it), and a continuation's push would replace them. agentloop does not push over them.\n\n"+
		"The options:\n- fix it yourself on the branch `%s`\n- close the pull request; a new run of the issue starts afresh\n\n", link.PRURL, ev.what, r.branch, r.branch)
	body += r.prCommands("take the commits pushed to the branch as its new start and go on from them for it, with TEXT as guidance")
	say := fmt.Sprintf("its branch %s has commits pushed by someone else, which agentloop does not push over", r.branch)
	if guided.kind != "" {
		body += fmt.Sprintf("\n%s's guidance for the question before is kept: agentloop goes on with it once it can push to the branch again, or once a guide answers this question (given both).\n", guided.by)
		say += fmt.Sprintf("; %s's guidance is kept for then", guided.by)
	}
	if carry != "" {
		body += fmt.Sprintf("\nThe question agentloop asked before about the pull request (%s) still stands: a command given after it and before this comment answers it; one after this comment answers this one.\n", cmp.Or(r.askedURL, "above"))
	}
	out, _, err = r.askPRAnswered(ctx, st, key, carry, body, ev.what+"; "+say, true)
	return issueAnswer{}, out, err
}

// adopt takes the commits someone else pushed to the pull request's branch
// (head, the forge's) as the branch's new start, on a writer's guide
// ([issueRun.pushed]): fetched from the remote, the run's branch is set to
// head in its worktree, where the continuation goes on from.
func (r *issueRun) adopt(ctx context.Context, head string) error {
	if err := gitx.FetchAll(r.gitAuth(ctx), r.repo, r.remote); err != nil {
		fix := "check the remote"
		if why := r.denied(ctx, err); why != "" {
			fix = why
		}
		return fmt.Errorf("issue %s: fetch the commits pushed to its branch %s: %w; %s, then run the same command again%s", r.ref, r.branch, err, fix, r.kept())
	}
	if err := gitx.SwitchBranch(ctx, r.wt, r.branch, head); err != nil {
		return fmt.Errorf("issue %s: take the commits pushed to its branch %s as its start: %w%s", r.ref, r.branch, err, r.kept())
	}
	return nil
}

// prCommands is what a question about the pull request says of the
// commands that answer it: guide what /agentloop guide does ("": it does
// not answer it), accept and abort as for a question over a cap
// ([issueRun.capSettled]).
func (r *issueRun) prCommands(guide string) string {
	var b strings.Builder
	b.WriteString("Or answer with a comment of your own that starts with one of these (only people who may write to the repository are heard):\n")
	b.WriteString("- `/agentloop guide TEXT`: " + guide + "\n")
	b.WriteString("- `/agentloop accept`: leave the pull request as it is; agentloop pushes nothing more for it\n" +
		"- `/agentloop abort`: stop agentloop's work on the pull request\n\n")
	fmt.Fprintf(&b, "Then `agentloop run --issue %s`, or serve, takes the answer.\n", r.ref)
	return b.String()
}

// askPR asks a person on the issue about its pull request, once for key
// while it waits (a restart finds the comment; asked again once it no
// longer waits, it is a new one), instead of pushing: the labels say it
// needs a person, and the run's exit is an escalation's. carry is the
// question over a cap that still waits ("": none), which the new one
// carries ([state.Issue.Carried]): its answer is not lost.
func (r *issueRun) askPR(ctx context.Context, st *state.State, key, carry, body, what string) (Outcome, bool, error) {
	return r.askPRAnswered(ctx, st, key, carry, body, what, false)
}

// askPRAnswered is [issueRun.askPR] of a question that, carrying
// another, is answered by a command of its own (answered): a command
// after it answers it, one before it the question it carries
// ([state.Issue.Carrier]). One that carries none is answered so anyway.
func (r *issueRun) askPRAnswered(ctx context.Context, st *state.State, key, carry, body, what string, answered bool) (Outcome, bool, error) {
	if r.asks(*st.Issue, key) {
		if r.ignored == 0 {
			if r.o.memo == nil || r.o.memo.waiting(r.ref, key) {
				fmt.Fprintf(r.out, "Issue %s: pull request %s: %s: still waiting for a person on the issue\n", r.ref, st.Issue.PRURL, what)
			}
			return Outcome{Status: state.StatusEscalated}, false, nil
		}
		fmt.Fprintf(r.out, "Issue %s: pull request %s: %d /agentloop %s by people who cannot write to the repository ignored; still waiting for a person on the issue\n", r.ref, st.Issue.PRURL, r.ignored, pluralize(r.ignored, "command"))
		r.shown.note, r.shown.state, r.shown.ignored = "Needs you: "+cmp.Or(r.askedURL, "the question above"), "needs you", r.ignored
		return Outcome{Status: state.StatusEscalated}, false, r.edit(ctx)
	}
	q := st.Issue.Questions + 1 // a restart after the post finds it; a question asked again is a new one
	id, url, err := r.postOnce(ctx, "escalation", fmt.Sprintf("%s/%d", key, q), body)
	if err != nil {
		return Outcome{}, false, err
	}
	if err := r.record(ctx, func(i *state.Issue) {
		i.AskedFor, i.Carried, i.Carrier, i.Questions = key, carry, 0, q
		if carry == "" {
			i.Asked = id
		} else if answered {
			i.Carrier = id
		}
	}); err != nil {
		return Outcome{}, false, err
	}
	if err := r.label(ctx, []string{r.labels.NeedsYou}, []string{r.labels.Running, r.labels.Done}); err != nil {
		return Outcome{}, false, err
	}
	r.shown.note, r.shown.state = "Needs you: "+url, "needs you"
	if err := r.edit(ctx); err != nil {
		return Outcome{}, false, err
	}
	fmt.Fprintf(r.out, "Issue %s: pull request %s: %s: the question is on the issue (%s)\n", r.ref, st.Issue.PRURL, what, url)
	return Outcome{Status: state.StatusEscalated}, false, nil
}
