package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/state"
)

// loop runs the issue's loop, or goes on with it, as its state says: a new
// run once the issue is claimed; a run cut short resumed; an escalated one
// resumed with the answer a writer gave on the issue (none: it still waits);
// a finished one not run again. An Outcome without status: nothing to go on
// with (a race lost).
func (r *issueRun) loop(ctx context.Context, prev *state.State) (Outcome, error) {
	if prev == nil {
		won, err := r.claim(ctx, nil)
		if err != nil || !won {
			return Outcome{}, err
		}
		if err := r.worktree(ctx, nil); err != nil {
			return Outcome{}, err
		}
		p := r.o.Plan
		p.Name, p.WorkDir, p.Task = r.name, r.wt, r.task
		p.Issue = &state.Issue{Ref: r.ref.String(), Task: r.task, Branch: r.branch, Base: gitx.CurrentBranch(ctx, r.repo), Comment: r.shown.comment}
		fmt.Fprintf(r.out, "Issue %s: run %s works on branch %s in %s\n", r.ref, r.name, r.branch, RelPath(r.repo, r.wt))
		if err := r.states.begin(ctx, r.name, *p.Issue); err != nil {
			return Outcome{}, fmt.Errorf("issue %s: keep its record: %w", r.ref, err)
		}
		return r.following(ctx, func(ctx context.Context) (Outcome, error) { return r.eng.Run(ctx, p, r.o.Server) })
	}
	if err := r.worktree(ctx, prev); err != nil {
		return Outcome{}, err
	}
	link := *prev.Issue
	link.Task = r.task // the issue as it reads now
	if _, err := r.claim(ctx, &link); err != nil {
		return Outcome{}, err
	}
	link.Comment = r.shown.comment
	if err := r.record(ctx, func(i *state.Issue) { *i = link }); err != nil {
		return Outcome{}, err
	}
	if f, ok := r.eng.(interface {
		Follow(context.Context, string, FollowOptions) (Outcome, error)
	}); ok && r.states.goesOn(prev) {
		// Its workflow goes on without the command that started it: followed.
		return r.following(ctx, func(ctx context.Context) (Outcome, error) {
			return f.Follow(ctx, r.name, FollowOptions{Configure: r.o.Configure, Verbose: r.o.Verbose})
		})
	}
	ro := ResumeOptions{Server: r.o.Server, Configure: r.o.Configure, Verbose: r.o.Verbose, JSON: r.o.JSON}
	switch prev.Status {
	case state.StatusSucceeded, state.StatusCompleted:
		return Outcome{Status: prev.Status}, nil
	case state.StatusAborted:
		fmt.Fprintf(r.out, "Issue %s: its run %s stopped (%s): once what stopped it is mended, go on with 'agentloop resume %s' (with --engine as for run --issue, and --max-… for a limit), then run --issue again\n", r.ref, r.name, prev.Reason, r.name)
		return Outcome{Status: prev.Status}, nil
	case state.StatusEscalated:
		a, found, err := r.answer(ctx, link)
		if err != nil {
			return Outcome{}, err
		}
		if !found {
			return Outcome{Status: prev.Status}, nil // asked again, if it was not
		}
		ro.Guidance, ro.Accept, ro.Abort = a.guidance, a.accept, a.abort
		fmt.Fprintf(r.out, "Issue %s: %s answered the escalation (%s)\n", r.ref, a.by, a.kind)
		if link.Carried != "" {
			// The question over a cap it carried waits again, answered by a
			// command after this answer, never by it.
			if err := r.record(ctx, func(i *state.Issue) { i.Asked, i.AskedFor, i.Carried, i.Carrier = a.id, i.Carried, "", 0 }); err != nil {
				return Outcome{}, err
			}
			r.askedURL = ""
		}
		if ro.Accept || ro.Abort {
			out, err := r.eng.Resume(ctx, r.name, ro)
			if err == nil {
				out.Chosen = true
			}
			return out, err
		}
	}
	return r.following(ctx, func(ctx context.Context) (Outcome, error) { return r.eng.Resume(ctx, r.name, ro) })
}

// following runs run while the progress comment follows the run's state.
func (r *issueRun) following(ctx context.Context, run func(context.Context) (Outcome, error)) (Outcome, error) {
	stop := r.follow(ctx)
	out, err := run(ctx)
	stop()
	return out, err
}

// record changes the issue record of the run's state.
func (r *issueRun) record(ctx context.Context, change func(*state.Issue)) error {
	if err := r.states.record(ctx, r.name, state.Issue{Ref: r.ref.String(), Branch: r.branch}, change); err != nil {
		return fmt.Errorf("issue %s: %w", r.ref, err)
	}
	return nil
}

// noteWrote records when the run last wrote on the issue, by the forge's
// clock, and the newest comment it had read ([state.Issue.Wrote]), once it
// is done with it. A run without a record (a race lost) has nothing to
// note; one not noted is taken again by serve once for its own writes.
func (r *issueRun) noteWrote(ctx context.Context) {
	if r.wrote.IsZero() {
		return
	}
	// Noted after the command's end too (Ctrl-C): briefly, whatever ended it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if st, _ := r.states.load(ctx, r.name); st == nil || st.Issue == nil || !r.wrote.After(st.Issue.Wrote) && r.heard <= st.Issue.Heard {
		return
	}
	if err := r.record(ctx, func(i *state.Issue) {
		if r.wrote.After(i.Wrote) {
			i.Wrote = r.wrote
		}
		i.Heard = max(i.Heard, r.heard)
	}); err != nil {
		fmt.Fprintf(r.out, "warning: %v\n", err)
	}
}

// after does on the tracker what the run's end asks: a pull request for work
// done, a question for an escalation, the labels and the progress comment
// for the rest.
func (r *issueRun) after(ctx context.Context, out Outcome) (Outcome, error) {
	st, err := r.states.load(ctx, r.name)
	if err != nil {
		return out, fmt.Errorf("issue %s: read the state of %s: %w", r.ref, r.name, err)
	}
	r.shown.fill(st, r.states)
	switch st.Status {
	case state.StatusSucceeded, state.StatusCompleted:
		// Its push would replace commits someone pushed meanwhile: what the
		// pull request's look at them came to instead.
		var instead Outcome
		err := r.publish(ctx, st, &instead)
		if instead.Status != "" {
			return instead, err
		}
		return out, err
	case state.StatusEscalated:
		return out, r.ask(ctx, st)
	case state.StatusAborted:
		remove := []string{r.labels.Running, r.labels.Queued}
		var add []string
		if !out.Chosen {
			add = []string{r.labels.NeedsYou}
		}
		r.shown.state = "stopped"
		// The reason is said on the issue, where anyone reads it: redacted.
		reason := r.o.Plan.Secrets().String(st.Reason)
		switch {
		case out.Chosen:
		case st.Issue != nil && st.Issue.Fixing != "":
			// A continuation the run's limits refused: said on the issue, nothing pushed.
			r.shown.note = fmt.Sprintf("The continuation for the pull request (%s) stopped: %s. Nothing more was pushed; raise the limit with 'agentloop resume %s --max-…', then run --issue again.", st.Issue.Fixing, reason, r.name)
			fmt.Fprintf(r.out, "Issue %s: the continuation for its pull request (%s) stopped: %s; nothing more was pushed\n", r.ref, st.Issue.Fixing, st.Reason)
		default:
			r.shown.note = fmt.Sprintf("The run stopped: %s. Nothing was pushed. Whoever runs agentloop for this repository goes on from where it stopped with 'agentloop resume %s' once what stopped it is mended (a limit: --max-…), then 'agentloop run --issue %s' again.", reason, r.name, r.ref)
		}
		return out, errors.Join(r.label(ctx, add, remove), r.edit(ctx))
	}
	r.shown.state = string(st.Status)
	return out, r.edit(ctx)
}
