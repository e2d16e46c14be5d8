package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// ErrSuspended is returned by [Env.AwaitGuidance] when the run must stop and wait
// for a human outside this process (the local engine: `agentloop resume`).
var ErrSuspended = errors.New("loop: suspended until a human answers")

// ErrTimeRanOut is returned by [Env.Step] when the run's time budget
// ([StepRequest.Remaining]) ran out while the step ran: the step was stopped
// and the decider says how the run ends.
var ErrTimeRanOut = errors.New("the run's time budget ran out during the step")

// StopError is returned by [Env.Step] when the environment cannot go on and the run
// must end with the given status (a rate limit that outlasted every fallback, say).
type StopError struct {
	Status state.Status
	Reason string
	// Err, when set, is returned by [Run] once the state is saved, for the
	// caller to act on (an agent that cannot work until someone fixes it).
	Err error
}

func (e *StopError) Unwrap() error { return e.Err }

func (e *StopError) Error() string { return fmt.Sprintf("stop as %s: %s", e.Status, e.Reason) }

// SaveError is returned by [Run] when the state cannot be saved: the run stops
// at once rather than go on with work that a crash would lose or a resume would
// do twice. The state on disk stays the last one saved, which `resume` continues.
type SaveError struct {
	Name string
	Err  error
}

func (e *SaveError) Error() string {
	return fmt.Sprintf("the state of run %s cannot be saved (%v), so the run stopped; free disk space or fix the permissions of the state folder, then continue with: agentloop resume %s", e.Name, e.Err, e.Name)
}

func (e *SaveError) Unwrap() error { return e.Err }

// Outcome is how a session of a run ended.
type Outcome struct {
	Status state.Status
	Reason string
	// Budgets are the run's limits that stopped it ([State.StoppedBy]).
	Budgets []budget.Resource
}

// Run advances one task's loop until it ends or must wait for a human. The caller
// prepares st (a fresh state or a loaded one, status running, the session recorded);
// Run persists it through env after every step. spec.Decider says whether and
// why the loop stops; Run obeys.
func Run(ctx context.Context, env Env, spec state.Spec, st *state.State) (Outcome, error) {
	if spec.Decider == nil {
		return Outcome{}, errors.New("loop: the spec has no decider")
	}
	r := runner{env: env, spec: &spec, st: st}
	return r.run(ctx)
}

type runner struct {
	env    Env
	spec   *state.Spec
	st     *state.State
	warned []budget.Resource // the budgets already warned about at 80%
	// costUnknown: told once that the cost budget cannot be checked.
	costUnknown bool
}

func (r *runner) run(ctx context.Context) (Outcome, error) {
	if rn, ok := r.env.(Renewer); ok {
		if c, renewed := rn.Renewed(); renewed {
			r.warned, r.costUnknown = c.Warned, c.CostUnknown
			return r.iterations(ctx)
		}
	}
	st := r.st
	decided, ends := r.decided()
	st.Status = state.StatusRunning
	st.Reason, st.StoppedBy = "", nil
	st.Segment = max(st.Segment, 1)
	r.emit(ctx, 0, state.RunStarted{
		Procedure: r.spec.Procedure, MaxIterations: r.spec.Limits.MaxIterations,
		Iteration: st.Iteration, Resumed: st.Resumed(), Elapsed: st.Spend.Wall,
		Segment: st.Segment, Attempts: st.Attempts,
	})
	r.recover(ctx)
	if err := r.save(ctx); err != nil {
		return r.unsaved(ctx, err)
	}
	if ends {
		out, _, err := r.obey(ctx, decided)
		return out, err
	}
	if out, done, err := r.resumeTree(ctx); done {
		return out, err
	}
	if r.spec.Baseline && r.spec.HasGates && !st.BaselineDone {
		if out, done, err := r.baseline(ctx); done {
			return out, err
		}
	}
	return r.iterations(ctx)
}

// iterations runs the loop's iterations until the session ends.
func (r *runner) iterations(ctx context.Context) (Outcome, error) {
	rn, _ := r.env.(Renewer)
	for {
		if out, done, err := r.steer(ctx); done {
			return out, err
		}
		if rn != nil && ctx.Err() == nil && rn.Renew() {
			return Outcome{Status: state.StatusRunning}, &RenewError{Carried{Warned: r.warned, CostUnknown: r.costUnknown}}
		}
		p := r.preflight(ctx)
		if p.Action != state.ActionContinue {
			out, done, err := r.obey(ctx, state.Decision{Action: p.Action, Message: p.Message, Budgets: p.Budgets})
			if done {
				return out, err
			}
			continue
		}
		if r.spec.Shared {
			if out, done, err := r.reserve(ctx, p); done {
				return out, err
			}
		}
		out, done, err := r.iterate(ctx, p.Remaining)
		if done {
			return out, err
		}
	}
}

// decided is the decision on the last recorded iteration when it ended the
// run done (proceed, complete) and the session that made it died before it
// saved the end (the state still says running or interrupted): the next
// session carries it out, rather than judge the run again (at its last
// iteration: escalated, its goal not met) or run more iterations after its
// goal was met. Such a decision never rolls the tree back, so the state holds
// all of it. An abort or escalate decision is judged again instead: its
// rollback and its question live only in the decision.
func (r *runner) decided() (state.Decision, bool) {
	st := r.st
	a := state.Action(st.LastDecision)
	if st.Status != state.StatusRunning && st.Status != state.StatusInterrupted ||
		a != state.ActionProceed && a != state.ActionComplete || len(st.History) == 0 {
		return state.Decision{}, false
	}
	rec := st.History[len(st.History)-1]
	if rec.Decision != st.LastDecision || rec.N != st.Iteration {
		return state.Decision{}, false
	}
	return state.Decision{Action: a, Message: rec.Summary}, true
}

func (r *runner) baseline(ctx context.Context) (Outcome, bool, error) {
	r.emit(ctx, 0, state.BaselineStarted{})
	res, err := r.env.Step(ctx, StepRequest{Kind: StepBaseline})
	if err != nil {
		r.st.Count(res.Started, res.Finished, 0) // cut short: its time counts all the same
		out, err := r.stepFailed(ctx, err)
		return out, true, err
	}
	r.st.Baseline = res.Baseline
	r.st.BaselineDone = true
	if r.st.Feedback == "" {
		r.st.Feedback = r.spec.Decider.Brief(res.Baseline) // the first prompt carries what already fails
	}
	r.st.Count(res.Started, res.Finished, 0)
	failing := 0
	for _, g := range res.Baseline {
		failing += len(g.Findings)
	}
	if err := r.save(ctx); err != nil {
		out, err := r.unsaved(ctx, err)
		return out, true, err
	}
	r.emit(ctx, 0, state.BaselineFinished{Gates: len(res.Baseline), Failures: failing})
	return Outcome{}, false, nil
}

// reserve asks the environment to hold the next iteration's predicted cost
// in the spend shared with other loops; done reports that the session ends
// (a hard limit, a signal while it waited). The time it waits is not the
// run's: no iteration ran.
func (r *runner) reserve(ctx context.Context, p state.Preflight) (Outcome, bool, error) {
	_, err := r.env.Step(ctx, StepRequest{
		Kind: StepReserve, Iteration: r.st.Iteration + 1, Seq: r.st.Attempts + 1,
		Agent: r.st.Next.Agent, AwaitReset: r.st.Next.AwaitReset, Reserve: p.Reserve, Remaining: p.Remaining,
	})
	if err == nil && ctx.Err() == nil {
		return Outcome{}, false, nil
	}
	if err == nil {
		err = context.Cause(ctx)
	}
	out, err := r.stepFailed(ctx, err)
	return out, true, err
}

// iterate runs one iteration with what the run has left to spend; done reports
// that the session ends.
func (r *runner) iterate(ctx context.Context, left budget.Remaining) (Outcome, bool, error) {
	st := r.st
	n := st.Iteration + 1
	// The attempt's number is taken before it starts and never given again:
	// the environment's marker of the attempt in progress carries it, so a
	// session that dies part way leaves it to the next one's Recover.
	seq := st.Attempts + 1
	st.Attempts = seq
	r.emitSeq(ctx, n, seq, state.IterationStarted{MaxIterations: r.spec.Limits.MaxIterations, Strategy: st.Next.Strategy})
	res, err := r.env.Step(ctx, StepRequest{
		Kind:       StepIteration,
		Iteration:  n,
		Seq:        seq,
		Attempt:    max(st.Next.Attempt, 1),
		Feedback:   st.Feedback,
		Guidance:   st.Guidance,
		Steer:      st.Steer,
		Strategy:   st.Next.Strategy,
		Lessons:    st.Next.Lessons,
		Focus:      st.Next.Focus,
		Expand:     st.Next.Expand,
		Agent:      st.Next.Agent,
		AwaitReset: st.Next.AwaitReset,
		Timeout:    cmp.Or(st.Next.Timeout.Duration(), r.spec.Limits.IterationTimeout),
		Baseline:   st.Baseline,
		Told:       r.spec.Told,
		Remaining:  left,
	})
	if err == nil && ctx.Err() != nil {
		// A signal as the step ended (during its checkpoint, say): the
		// attempt is cut like any other, never counted as finished.
		err = context.Cause(ctx)
	}
	if err != nil {
		r.cutShort(ctx, n, seq, res, err)
		if errors.Is(err, ErrTimeRanOut) && ctx.Err() == nil {
			// The decider judges the spend, the cut attempt's time included.
			if p := r.preflight(ctx); p.Action != state.ActionContinue {
				return r.obey(ctx, state.Decision{Action: p.Action, Message: p.Message, Budgets: p.Budgets})
			}
		}
		out, err := r.stepFailed(ctx, err)
		return out, true, err
	}
	ev := res.Iteration
	ev.N = n
	d := r.spec.Decider.Decide(state.DecideInput{State: st, Spec: r.spec, Evidence: ev, Budget: state.BudgetStatus(st, &ev)})
	r.st.Fold(ev, seq, res, d)
	// What the decider concluded is kept before the state that records the
	// iteration is saved: a recorded iteration always has its decision and
	// feedback files (an attempt cut after they were written has them too).
	r.keep(ctx, state.Artifacts{Iteration: n, Seq: seq, Decision: d.Document, Feedback: d.Feedback})
	// The state is saved before the iteration is announced: an iteration whose
	// record is lost is run again on resume, and only then reported finished.
	if err := r.save(ctx); err != nil {
		out, err := r.unsaved(ctx, err)
		return out, true, err
	}
	fin := state.IterationFinished{
		MaxIterations: r.spec.Limits.MaxIterations, Duration: state.MillisOf(ev.Duration()),
		Succeeded: d.Succeeded, ConsecutiveFailures: st.ConsecutiveFailures,
		FailureThreshold: r.spec.Limits.FailureThreshold, Action: d.Action, Strategy: d.Strategy,
		Message: d.Message, Quality: d.Quality, Triggers: decision.TriggerIDs(d.Triggers),
		AgentExit: ev.Agent.ExitCode, AgentReason: ev.Agent.Reason, CostUSD: ev.Agent.Usage.CostUSD,
		CostKnown: ev.Agent.Usage.CostKnown, Tokens: ev.Agent.Usage.TotalTokens(), TokensKnown: ev.Agent.Usage.TokensKnown,
	}
	if ev.Review != nil {
		fin.Review, fin.ReviewScore = ev.Review.Verdict, ev.Review.Score
	}
	r.emitSeq(ctx, n, seq, fin)
	if r.spec.Limits.MaxCostUSD > 0 && !ev.Agent.Usage.CostKnown && !r.costUnknown {
		r.costUnknown = true
		r.emit(ctx, n, state.Warning{Message: fmt.Sprintf("the agent reports no cost: the cost budget of $%.2f cannot be checked (the other limits still hold)", r.spec.Limits.MaxCostUSD)})
	}

	// A run never ends worse than its best checkpoint: the decider asks for a
	// rollback on the way out too (escalate, abort), not only to continue.
	if d.Rollback != "" && d.Action != state.ActionProceed {
		r.emit(ctx, n, state.Rollback{Checkpoint: d.Rollback})
		if _, err := r.env.Step(ctx, StepRequest{Kind: StepRollback, Iteration: n, Seq: seq, Checkpoint: d.Rollback, Expect: st.Tree, Why: "roll back to the best checkpoint"}); err != nil {
			if ctx.Err() != nil {
				out, err := r.stepFailed(ctx, err)
				return out, true, err
			}
			r.emit(ctx, n, state.Warning{Message: "roll back to " + d.Rollback + ": " + err.Error()})
		} else {
			st.Tree = d.Rollback
		}
	}
	return r.obey(ctx, d)
}

// obey carries out a decision's action: the session ends (proceed, complete,
// abort), asks a human (escalate) or goes on.
func (r *runner) obey(ctx context.Context, d state.Decision) (Outcome, bool, error) {
	var out Outcome
	switch d.Action {
	case state.ActionProceed:
		out = Outcome{Status: state.StatusSucceeded, Reason: cmp.Or(d.Message, "all required gates passed")}
	case state.ActionComplete:
		out = Outcome{Status: state.StatusCompleted, Reason: cmp.Or(d.Message, "the loop ran its course")}
	case state.ActionAbort:
		out = Outcome{Status: state.StatusAborted, Reason: cmp.Or(d.Message, "the decision engine gave up"), Budgets: d.Budgets}
	case state.ActionEscalate:
		return r.escalate(ctx, d)
	default:
		return Outcome{}, false, nil
	}
	out, err := r.finish(ctx, out)
	return out, true, err
}

func (r *runner) escalate(ctx context.Context, d state.Decision) (Outcome, bool, error) {
	e := state.Escalation{Reason: cmp.Or(d.Message, "the loop needs a human decision")}
	if d.Escalation != nil {
		e = *d.Escalation
	}
	e.Segment = r.st.Segment
	e.Segments = state.SegmentSummaries(r.st)
	if n := len(r.st.Handoffs); n > 0 {
		h := r.st.Handoffs[n-1]
		e.Since, e.Handoffs = &h, n
	}
	r.st.Status = state.StatusEscalated
	r.st.Reason = e.Reason
	// The report is written before the state that says the run escalated is
	// saved: an escalated run always has its report.
	r.keep(ctx, state.Artifacts{Iteration: r.st.Iteration, Escalation: &e})
	if err := r.save(ctx); err != nil {
		out, err := r.unsaved(ctx, err)
		return out, true, err
	}
	r.emit(ctx, r.st.Iteration, state.Escalated{Reason: e.Reason, Question: e.Question})
	g, err := r.env.AwaitGuidance(ctx, e)
	if err != nil {
		if errors.Is(err, ErrSuspended) {
			out, err := r.finish(ctx, Outcome{Status: state.StatusEscalated, Reason: e.Reason})
			return out, true, err
		}
		out, err := r.stepFailed(ctx, err)
		return out, true, err
	}
	h := state.ApplyGuidance(r.st, g)
	r.st.Status = state.StatusRunning
	r.emit(ctx, r.st.Iteration, h)
	r.emit(ctx, r.st.Iteration, state.GuidanceReceived{Architecture: g.Architecture})
	return Outcome{}, false, nil
}

// Settled is how a run ends when its human ends it after an escalation
// without running anything more (resume --accept, --abort): accepted, it ends
// completed with its work tree at the best checkpoint (tree names the commit it
// was left at, "" outside git); else aborted, its tree left as the loop left it.
func Settled(st *state.State, accept bool, tree string) Outcome {
	at := ""
	if tree != "" {
		at = ", the work tree is at " + shortRef(tree)
	}
	if !accept {
		return Outcome{Status: state.StatusAborted, Reason: "aborted by you after the escalation" + at}
	}
	reason := "you accepted the work tree as the loop left it" + at
	if b := st.Best; b != nil && b.Ref != "" {
		reason = fmt.Sprintf("you accepted the best checkpoint (%s, %s)%s", b.Label(), shortRef(b.Ref), at)
	}
	return Outcome{Status: state.StatusCompleted, Reason: reason}
}

// shortRef is a commit name shortened for people (12 hex digits).
func shortRef(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// stepFailed ends the session after a step error: an interrupt, a timeout, a stop
// asked for by the environment, or an infrastructure failure.
func (r *runner) stepFailed(ctx context.Context, err error) (Outcome, error) {
	var se *StopError
	switch {
	case errors.As(err, &se):
		out, ferr := r.finish(ctx, Outcome{Status: se.Status, Reason: se.Reason})
		if se.Err != nil && ferr == nil {
			ferr = se.Err
		}
		return out, ferr
	case errors.Is(context.Cause(ctx), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return r.finish(ctx, Outcome{Status: state.StatusAborted, Reason: "overall timeout reached"})
	case ctx.Err() != nil:
		reason := "interrupted"
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			reason = c.Error()
		}
		return r.finish(ctx, Outcome{Status: state.StatusInterrupted, Reason: reason})
	}
	out, _ := r.finish(ctx, Outcome{Status: state.StatusAborted, Reason: err.Error()})
	return out, err
}

func (r *runner) finish(ctx context.Context, out Outcome) (Outcome, error) {
	st := r.st
	st.Status = out.Status
	st.Reason, st.StoppedBy = out.Reason, out.Budgets
	if n := len(st.Sessions); n > 0 {
		st.Sessions[n-1].Status = out.Status
		st.Sessions[n-1].Reason = out.Reason
	}
	if err := r.save(ctx); err != nil {
		return r.unsaved(ctx, err)
	}
	r.emit(ctx, st.Iteration, state.RunFinished{Status: out.Status, Reason: out.Reason, Iterations: st.TotalIterations, Wall: st.Spend.Wall})
	return out, nil
}

func (r *runner) save(ctx context.Context) error {
	if err := r.env.Save(context.WithoutCancel(ctx), r.st); err != nil {
		return &SaveError{Name: r.st.Name, Err: err}
	}
	return nil
}

// unsaved ends the session after the state could not be saved. Nothing more is
// saved or announced as done: the state on disk is the last one saved.
func (r *runner) unsaved(ctx context.Context, err error) (Outcome, error) {
	r.emit(ctx, r.st.Iteration, state.Warning{Message: err.Error()})
	return Outcome{Status: state.StatusInterrupted, Reason: "the state cannot be saved"}, err
}

func (r *runner) keep(ctx context.Context, a state.Artifacts) {
	if a.Decision == nil && a.Feedback == "" && a.Escalation == nil {
		return
	}
	if err := r.env.Keep(context.WithoutCancel(ctx), a); err != nil {
		if a.Escalation != nil {
			r.emit(ctx, a.Iteration, state.Warning{Message: "write the escalation report: " + err.Error()})
			return
		}
		r.emit(ctx, a.Iteration, state.Warning{Message: fmt.Sprintf("the artifacts of iteration %d not kept: %v", a.Iteration, err)})
	}
}

func (r *runner) emit(ctx context.Context, n int, data state.EventData) {
	r.emitSeq(ctx, n, 0, data)
}

// emitSeq records an event of attempt seq (0: of no attempt).
func (r *runner) emitSeq(ctx context.Context, n, seq int, data state.EventData) {
	// An event that cannot be recorded must not stop the loop; the environment
	// reports its own failures.
	_ = r.env.Emit(context.WithoutCancel(ctx), state.Event{Iteration: n, Seq: seq, Segment: r.st.Segment, Data: data})
}

// cutShort records attempt seq (iteration n) that ended without a result
// (Ctrl-C, a timeout of the whole run, a stop asked for by the environment, a
// signal as it ended): its time, the agent's usage as far as it was read, and
// the checkpoints of where it started and what it left, so the next session
// undoes it (what it left stays in its cut ref). The iteration runs again on
// resume as a new attempt; what this one spent is kept.
func (r *runner) cutShort(ctx context.Context, n, seq int, res state.StepResult, err error) {
	st := r.st
	st.Count(res.Started, res.Finished, res.Paused)
	u := res.Iteration.Agent.Usage
	st.Spend.Usage = st.Spend.Usage.Add(u)
	c := state.Interrupted{
		Seq: seq, Segment: st.Segment, Iteration: n, StartedAt: res.Started, Usage: u,
		Start: res.Start, Cut: res.Checkpoint, Reason: cutReason(ctx, err),
	}
	if rv := res.Iteration.Review; rv != nil {
		c.Reviewer = rv.Usage
		st.Spend.Reviewer = st.Spend.Reviewer.Add(rv.Usage)
	}
	if !res.Started.IsZero() && res.Finished.After(res.Started) {
		c.Duration = state.MillisOf(res.Finished.Sub(res.Started) - min(res.Paused, res.Finished.Sub(res.Started)))
	}
	st.Interrupted = append(st.Interrupted, c)
	r.leftInTree(c)
}

// leftInTree notes a cut attempt's work left in the work tree, to undo at the
// start of the next session.
func (r *runner) leftInTree(c state.Interrupted) {
	if c.Start == "" {
		return // no checkpoints (not a git work tree): nothing to go back to
	}
	r.st.Undo = &state.Undo{Seq: c.Seq, Start: c.Start, Cut: c.Cut}
	if c.Cut != "" {
		r.st.Tree = c.Cut
	}
}

func cutReason(ctx context.Context, err error) string {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c.Error()
	}
	if ctx.Err() != nil {
		return "interrupted"
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// recover counts what earlier sessions' cut attempts spent (their time always,
// their tokens and cost as far as their transcripts tell) and notes the work
// the last one left in the tree, to undo.
func (r *runner) recover(ctx context.Context) {
	cut, err := r.env.Recover(ctx, r.st.Attempts)
	if err != nil {
		r.emit(ctx, r.st.Iteration, state.Warning{Message: "an attempt an earlier session cut short may not be counted: " + err.Error()})
	}
	for _, c := range cut {
		c.Segment = max(c.Segment, r.st.Segment)
		if c.Iteration == 0 {
			c.Iteration = r.st.Iteration + 1 // one that died before it said which: the next
		}
		r.st.Attempts = max(r.st.Attempts, c.Seq)
		r.st.Interrupted = append(r.st.Interrupted, c)
		r.st.Spend.Wall += c.Duration
		r.st.Spend.Usage = r.st.Spend.Usage.Add(c.Usage)
		r.st.Spend.Reviewer = r.st.Spend.Reviewer.Add(c.Reviewer)
		r.leftInTree(c)
		spend := "its tokens and cost are unknown (the agent's transcript does not tell them)"
		if c.Usage.TokensKnown || c.Usage.CostKnown {
			spend = "so do the tokens and cost its transcript tells"
		}
		r.emitSeq(ctx, c.Iteration, c.Seq, state.Warning{Message: fmt.Sprintf(
			"attempt %d (iteration %d) of an earlier session was cut short (a crash or a kill) after its agent ran %s: it runs again as a new attempt, its time counts against the budgets, %s",
			c.Seq, c.Iteration, c.Duration.Duration().Round(100*time.Millisecond), spend)})
	}
}

// resumeTree is the resume rule for the work tree, the one both engines obey:
// a session starts from the tree as the person left it. The work a cut
// attempt left there is recorded (its cut ref, its partial diff) and kept, as
// is everything a person made or changed since the stop; the decider's later
// rollbacks count from this tree ([State.Floor]). Only the person's ask
// ([State.UndoCut], resume --undo-cut) puts the tree back where the cut
// attempt started, after the usual backup ([runner.undo]). done reports that
// the session ends.
func (r *runner) resumeTree(ctx context.Context) (Outcome, bool, error) {
	st := r.st
	undo := st.UndoCut
	st.UndoCut = false
	switch {
	case st.Undo == nil:
		return Outcome{}, false, nil
	case undo:
		return r.undo(ctx)
	}
	if u := st.Undo; u.Cut != u.Start {
		st.Floor = max(st.Floor, st.Attempts)
	}
	st.Undo = nil
	if err := r.save(ctx); err != nil {
		out, err := r.unsaved(ctx, err)
		return out, true, err
	}
	return Outcome{}, false, nil
}

// undo puts the work tree back where the cut attempt started, before anything
// else runs; the environment keeps what the tree holds beyond what agentloop
// last recorded (a person's edits since) in a backup ref and says so.
func (r *runner) undo(ctx context.Context) (Outcome, bool, error) {
	u := *r.st.Undo
	r.emit(ctx, r.st.Iteration, state.Rollback{Checkpoint: u.Start, Reason: fmt.Sprintf("undo the cut attempt %d", u.Seq)})
	_, err := r.env.Step(ctx, StepRequest{Kind: StepRollback, Iteration: r.st.Iteration, Seq: u.Seq, Checkpoint: u.Start, Expect: u.Cut,
		Why: fmt.Sprintf("undo the cut attempt %d", u.Seq)})
	if err != nil {
		if ctx.Err() != nil {
			out, err := r.stepFailed(ctx, err)
			return out, true, err
		}
		// The next attempt starts from the tree as it is; its start
		// checkpoint keeps its own diff honest.
		r.emit(ctx, r.st.Iteration, state.Warning{Message: fmt.Sprintf("put the work tree back where the cut attempt %d started (%s): %v; the next attempt starts from the tree as it is", u.Seq, shortRef(u.Start), err)})
	} else {
		r.st.Tree = u.Start
	}
	r.st.Undo = nil
	if err := r.save(ctx); err != nil {
		out, err := r.unsaved(ctx, err)
		return out, true, err
	}
	if ctx.Err() != nil {
		// A signal while the tree was put back: the restore ran to its end
		// and the state says where the tree is; the session stops there.
		out, err := r.stepFailed(ctx, ctx.Err())
		return out, true, err
	}
	return Outcome{}, false, nil
}
