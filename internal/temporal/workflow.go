package temporal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// The names the workflow, its activities, its query and its update are
// registered under; a worker and a client of another build must agree on them.
const (
	WorkflowRun    = "agentloop.run"
	ActivityStep   = "agentloop.step"
	QueryState     = "state"
	UpdateGuidance = "guidance"
)

// WorkflowID is the workflow of the run key, a run's name or its name in a
// repository ([Scoped]): one run of a key at a time.
func WorkflowID(key string) string { return workflowPrefix + key }

const workflowPrefix = "agentloop-"

// RunRef is what a worker needs to rebuild a run's plan and find its files.
type RunRef struct {
	Name      string
	RunID     string
	Procedure string
	WorkDir   string   // the work tree, on the worker's disk
	Args      []string // the flags the run was started with
	// TaskQueue is the queue of the run's first step (a worker's own queue,
	// run --worker-queue); empty for the workflow's own queue. Later steps go
	// to the worker that ran the last one, which holds the work tree (route.go).
	TaskQueue string
	// Task is the task of a task graph this run is the loop of; nil for a
	// run of its own.
	Task *GraphTask `json:",omitempty"`
}

// On is the run as it is on a worker whose clone of the repository is at
// clone ("" for the paths the run names): a run of its own has the clone as
// its work tree; a task's graph has its repository there and its state
// folder and the task's worktree at the same places in it ([GraphTask.In]).
func (r RunRef) On(clone string) RunRef {
	if r.Task == nil {
		if clone != "" {
			r.WorkDir = clone
		}
		return r
	}
	_, r.WorkDir = onClone(clone, r.Task.Repo, r.WorkDir)
	t := r.Task.In(clone)
	r.Task = &t
	return r
}

// RunInput starts a run's workflow: the loop's spec as plain data, the
// decider's policy, and the state to start from.
type RunInput struct {
	Run  RunRef
	Task string
	// Told is the task as the run was told it ([state.Spec.Told]): it
	// decides which failures are outside the task, as in a local run. A run
	// started before it was carried has none, and replays as it ran.
	Told        string `json:",omitempty"`
	Limits      budget.Limits
	HasGates    bool
	HasReviewer bool
	Baseline    bool
	Policy      decide.Policy
	State       state.State
	// HeartbeatTimeout is how long a step may go without a sign of life from
	// its worker before it is run again elsewhere (0: 30s).
	HeartbeatTimeout time.Duration
	// Repo is the identity of the repository the run was started in
	// ([RepoID]), which its workflow ID carries; for a graph's task, its
	// graph's ([GraphInput.RepoID]), "" when the graph has none.
	Repo string `json:",omitempty"`
	// ServerFlags are the flags that reach the run's server, as it was
	// started with them ("--temporal-address=HOST:PORT", …): the commands of
	// its escalation's options carry them after --engine temporal.
	ServerFlags string `json:",omitempty"`
	// Search says the namespace had the search attribute [SearchWaiting]
	// when the run was started ([Start], [StartGraph]): its workflow sets it
	// while it waits for a person. A run started before (or without it) has
	// none, and replays as it ran.
	Search bool `json:",omitempty"`
	// Shared: the run's plan has budgets: (the configuration it was started
	// from): each iteration is reserved in the ledger workflow (spend.go).
	Shared bool `json:",omitempty"`
	// Kept says the run's start put [MemoKept] in its workflow's memo
	// ([Start]): the workflow records no version marker and no memo of its
	// own for it, three events and a write of the server's list fewer
	// ([wfEnv.markMemo]). A run started before, or by its graph, has none,
	// and replays as it ran.
	Kept bool `json:",omitempty"`
	// RenewEvery, when set, continues the run's workflow as new every so
	// many iterations, besides when the server suggests it (renew.go).
	RenewEvery int `json:",omitempty"`
	// Renewed is what the run's last workflow carried into this one, which
	// it continued as (renew.go); nil for a run's first workflow.
	Renewed *Renewal `json:",omitempty"`
}

// View is what the state query returns: the run's state, its events, and its
// last escalation report.
type View struct {
	State  state.State
	Events []state.Event
	// Escalation is the run's last escalation report in Markdown, as a local
	// run keeps its escalation.md once answered; empty when it did not escalate.
	Escalation string
	Waiting    bool // the run waits for guidance (an update is accepted)
	// HeartbeatTimeout is the run's ([RunInput.HeartbeatTimeout]): a resume
	// keeps it.
	HeartbeatTimeout time.Duration
	// Graph is the task graph the run is the loop of a task of; "" for none.
	Graph string `json:",omitempty"`
	// Task is that task of the graph, for a resume to rebuild the run's plan
	// ([plan.ResumeTask]); nil for a run of its own.
	Task *GraphTask `json:",omitempty"`
	// EventsFrom is the index in the run's events of the first of Events,
	// for a view of the tail query ([QueryFrom]), whose State has no
	// History; 0 otherwise.
	EventsFrom int `json:",omitempty"`
	// Live is what the run's step under way is doing (its iteration and
	// phase), as the step's last heartbeat told the server; zero when none
	// told anything. [Query] reads it from the server, not from the
	// workflow, which knows nothing of it.
	Live state.LiveStatus `json:",omitzero"`
}

// Guidance is the update's argument: a human's answer to an escalation, a
// guidance text for the loop, or the run ended by the human's choice without
// running anything more ([loop.Settled]: resume --accept, --abort).
type Guidance struct {
	Text         string
	Architecture bool // record the answer as an architecture decision
	// Accept ends the run completed, its work tree restored to the best
	// checkpoint; Abort ends it aborted.
	Accept bool `json:",omitempty"`
	Abort  bool `json:",omitempty"`
	// Floor (with Text) is the resume rule's floor of later rollbacks
	// ([state.State.Floor]): the person's tree held edits when they answered.
	Floor int `json:",omitempty"`
}

// MaxGuidance is the longest guidance text the update accepts.
const MaxGuidance = 64 << 10

// Validate is the update's validator: an answer is a non-empty text of at most
// [MaxGuidance] bytes, or one of accept and abort alone.
func (g Guidance) Validate() error {
	switch {
	case g.Accept || g.Abort:
		if g.Accept && g.Abort || g.Text != "" {
			return errors.New("accept, abort and a guidance text are three different answers: give one")
		}
	case strings.TrimSpace(g.Text) == "":
		return errors.New("the guidance is empty: say what the loop should do next")
	case len(g.Text) > MaxGuidance:
		return fmt.Errorf("the guidance is %d bytes, more than %d", len(g.Text), MaxGuidance)
	}
	return nil
}

// RunResult is what a run's workflow returns: how it ended, and what it did
// and spent (for the graph a task run is part of).
type RunResult struct {
	loop.Outcome
	Iterations int
	Usage      evidence.Usage // the agent's and the reviewer's
	// Queue is the queue of the worker holding the run's work tree at its
	// end ("" for any worker), where a task's work is committed; Checkpoint
	// is its last checkpoint, which another worker rebuilds it from when that
	// worker is gone.
	Queue      string `json:",omitempty"`
	Checkpoint string `json:",omitempty"`
	// Baseline is the run's baseline gate results, which its gates on a
	// merged result are judged against (a task of a graph).
	Baseline []evidence.GateResult `json:",omitempty"`
}

// Run is the workflow of one task's loop: loop.Run over a workflow environment.
func Run(ctx workflow.Context, in RunInput) (RunResult, error) { return run(ctx, in, nil) }

// run is [Run]; seen, when set, is handed the workflow's environment, which
// the state query reads, for a replay of an ended run's history to read it
// (see [Query]).
func run(ctx workflow.Context, in RunInput, seen func(*wfEnv)) (RunResult, error) {
	env := &wfEnv{ctx: ctx, in: in, st: &in.State, from: in.State.TotalIterations}
	if in.Renewed != nil {
		if err := env.renewed(); err != nil {
			return RunResult{}, temporal.NewNonRetryableApplicationError(err.Error(), "agentloop.Renewed", err)
		}
	}
	if seen != nil {
		seen(env)
	}
	if err := workflow.SetQueryHandler(ctx, QueryState, env.view); err != nil {
		return RunResult{}, fmt.Errorf("register the state query: %w", err)
	}
	if err := workflow.SetQueryHandler(ctx, QueryTail, env.tail); err != nil {
		return RunResult{}, fmt.Errorf("register the tail query: %w", err)
	}
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateGuidance, env.guide, workflow.UpdateHandlerOptions{Validator: env.validate})
	if err != nil {
		return RunResult{}, fmt.Errorf("register the guidance update: %w", err)
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, UpdateSteer, env.steer, workflow.UpdateHandlerOptions{Validator: env.validateSteer})
	if err != nil {
		return RunResult{}, fmt.Errorf("register the steer update: %w", err)
	}
	if in.Renewed == nil {
		env.markMemo()
	}
	spec := state.Spec{
		Name: in.Run.Name, Procedure: in.Run.Procedure, Task: in.Task, Told: in.Told, Limits: in.Limits,
		HasGates: in.HasGates, HasReviewer: in.HasReviewer, Baseline: in.Baseline,
		Decider: decide.New(in.Policy),
	}
	spec.Shared = env.shared()
	// The loop sees no workflow context: time comes through the steps' results
	// and cancellation through their errors (see wfEnv.Step).
	out, err := loop.Run(context.Background(), env, spec, env.st)
	if re, ok := errors.AsType[*loop.RenewError](err); ok {
		return RunResult{}, env.renew(re.Carried)
	}
	env.over = true
	env.writeKept() // a save, or a step, that never came (it cannot fail here)
	if n := len(env.st.Sessions); n > 0 {
		env.st.Sessions[n-1].EndedAt = workflow.Now(ctx)
	}
	reach := strings.TrimSpace("--engine temporal " + in.ServerFlags)
	if rec, ok := loop.Stopped(in.Run.Name, reach, env.st, in.Limits, out, err); ok {
		_ = env.Emit(context.Background(), state.Event{Iteration: env.st.Iteration, Data: state.NeedsYou{NeedsYou: rec}})
		env.showWaiting(&rec)
	}
	res := RunResult{Outcome: out, Iterations: env.st.TotalIterations, Usage: env.st.Spend.Total(),
		Queue: env.queue(), Checkpoint: env.last(), Baseline: env.st.Baseline}
	return res, endedIn(err, res)
}

// runErrorType is the error type of a run's workflow that ended in an error
// ([endedIn]).
const runErrorType = "agentloop.RunError"

// endedIn is err, the error the run's loop ended in, carrying res, what the
// run did and spent until then: a workflow that fails returns no result, and
// the graph the run is a task of counts them all the same ([resultIn]).
func endedIn(err error, res RunResult) error {
	if err == nil {
		return nil
	}
	return temporal.NewApplicationErrorWithOptions("the run ended in an error", runErrorType,
		temporal.ApplicationErrorOptions{NonRetryable: true, Cause: err, Details: []any{res}})
}

// resultIn is the result a run's workflow that ended in the error err
// carried ([endedIn]); false for an error that carries none (a run of an
// older build, or a workflow that did not end by itself).
func resultIn(err error) (RunResult, bool) {
	ae, ok := errors.AsType[*temporal.ApplicationError](err)
	if !ok || ae.Type() != runErrorType || !ae.HasDetails() {
		return RunResult{}, false
	}
	var res RunResult
	if ae.Details(&res) != nil {
		return RunResult{}, false
	}
	return res, true
}

// wfEnv is the workflow's [loop.Env].
type wfEnv struct {
	ctx        workflow.Context
	in         RunInput
	st         *state.State
	events     []state.Event
	waiting    *state.Escalation // the escalation a human is asked to answer
	escalation *state.Escalation // the last escalation, answered or not
	answer     *Guidance         // the answer, until the loop takes it
	route      route             // the worker holding the work tree (route.go)
	told       evidence.Usage    // the spend last told to the graph
	pending    *state.Artifacts  // handed to Keep, written after the next save, or by the next step
	memo       bool              // the run keeps its memo (waiting.go)
	queued     state.Steering    // what the steer update queued (steer.go)
	over       bool              // the loop ended: nothing more is steered
	hold       *Hold             // the reservation of the next iteration (spend.go)
	fallback   string            // the fallback agent the iterations run on, the agent's account at its usage limit (spend.go)
	from       int               // the run's iterations when this workflow started (renew.go)
}

func (w *wfEnv) view() (View, error) {
	v := View{State: *w.st, Events: w.events, Waiting: w.waiting != nil, HeartbeatTimeout: w.in.HeartbeatTimeout}
	if t := w.in.Run.Task; t != nil {
		v.Graph, v.Task = t.Graph, t
	}
	if w.escalation != nil {
		v.Escalation = engine.EscalationMarkdown(*w.escalation)
	}
	return v, nil
}

func (w *wfEnv) validate(_ workflow.Context, g Guidance) error {
	if w.waiting == nil || w.answer != nil {
		return fmt.Errorf("run %s is %s, not waiting for guidance", w.st.Name, w.st.Status)
	}
	return g.Validate()
}

// guide hands the answer to the waiting loop and returns once the loop took it.
func (w *wfEnv) guide(ctx workflow.Context, g Guidance) error {
	w.answer = &g
	return workflow.Await(ctx, func() bool { return w.answer == nil })
}

// AwaitGuidance implements [loop.Env]: the run waits, for as long as it takes,
// for the guidance update. Each option of the escalation says the command
// that takes it. An answer that ends the run is the loop's stop.
func (w *wfEnv) AwaitGuidance(_ context.Context, e state.Escalation) (state.Guidance, error) {
	if e.Report != nil {
		rep := *e.Report
		rep.Run, rep.Flags = w.in.Run.Name, strings.TrimSpace("--engine temporal "+w.in.ServerFlags)
		e.Report = &rep
	}
	w.waiting, w.escalation = &e, &e // before the escalation's files: an answer may come while they are written
	rec := engine.NeedsYou(e, w.in.Run.Name, "")
	_ = w.Emit(context.Background(), state.Event{Iteration: w.st.Iteration, Data: rec})
	w.showWaiting(&rec.NeedsYou)
	in := KeepInput{Escalation: &e}
	if w.keptWithStep() {
		in.Artifacts, w.pending = w.pending, nil
	}
	w.keep(in)
	err := workflow.Await(w.ctx, func() bool { return w.answer != nil })
	w.showWaiting(nil)
	if err != nil {
		w.waiting = nil
		return state.Guidance{}, &loop.StopError{Status: state.StatusInterrupted, Reason: "the workflow was cancelled while it waited for guidance"}
	}
	g := *w.answer
	w.waiting, w.answer = nil, nil
	if g.Accept || g.Abort {
		tree, kind := w.st.Tree, state.HandoffAbort
		if g.Accept {
			kind = state.HandoffAccept
			if w.restoreBest() {
				tree = w.st.Best.Ref
				w.st.Tree = tree
			}
		}
		h := state.AddHandoff(w.st, state.Handoff{Kind: kind, At: workflow.Now(w.ctx), Checkpoint: tree})
		_ = w.Emit(context.Background(), state.Event{Iteration: w.st.Iteration, Segment: w.st.Segment, Data: h})
		out := loop.Settled(w.st, g.Accept, tree)
		return state.Guidance{}, &loop.StopError{Status: out.Status, Reason: out.Reason}
	}
	w.st.Floor = max(w.st.Floor, g.Floor)
	if g.Architecture || engine.Architectural(w.st) {
		w.keep(KeepInput{ADR: &ADR{State: *w.st, Guidance: g.Text}})
	}
	return state.Guidance{Text: g.Text, Architecture: g.Architecture, At: workflow.Now(w.ctx)}, nil
}

// Recover implements [loop.Env]: a step cut by a worker's death is run again
// by the server on another worker (see [Steps.Step]), so the loop never finds
// one left over.
func (w *wfEnv) Recover(context.Context, int) ([]state.Interrupted, error) { return nil, nil }

// settleChange is the version marker of the runs whose accepted escalation
// restores the best checkpoint (a history recorded before has no accept).
const settleChange = "settle"

// restoreBest puts the run's work tree back at its best checkpoint, on the
// worker holding it, as a rollback step: what the run is accepted with. It
// reports whether the tree is there; a restore that fails is a warning, and
// the run ends accepted all the same.
func (w *wfEnv) restoreBest() bool {
	b := w.st.Best
	if b == nil || b.Ref == "" || workflow.GetVersion(w.ctx, settleChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return false
	}
	ctx := context.Background()
	if _, err := w.Step(ctx, loop.StepRequest{Kind: loop.StepRollback, Iteration: w.st.Iteration, Seq: w.st.Attempts, Checkpoint: b.Ref, Expect: w.st.Tree, Why: "accept the best checkpoint"}); err != nil {
		_ = w.Emit(ctx, state.Event{Iteration: w.st.Iteration, Data: state.Warning{Message: "restore the best checkpoint " + b.Ref + ": " + err.Error()}})
		return false
	}
	return true
}

// Save implements [loop.Env]: the workflow's history is the state; the run of
// a task tells its graph what it spent so far (see [wfEnv.tellGraph]).
func (w *wfEnv) Save(_ context.Context, st *state.State) error {
	w.tellGraph(st)
	w.flushKeep()
	return nil
}

// flushKeep writes the artifacts the loop handed [wfEnv.Keep] before its save:
// the keep activity comes after the save's signal to the graph, in the order
// the histories recorded before [keepStepChange] have them. Since, they go
// with the run's next step (StepInput.Keep), written by the worker that
// takes it, which holds the run folder, before its agent starts: one
// activity an iteration, not two. When no step comes first (the run ends,
// or waits for a person or for its budget), a keep activity writes them then
// ([wfEnv.writeKept]).
func (w *wfEnv) flushKeep() {
	if w.pending != nil && !w.keptWithStep() {
		w.writeKept()
	}
}

// writeKept writes the artifacts the loop handed [wfEnv.Keep] now, in a keep
// activity; a run cancelled since they were handed writes them all the same.
func (w *wfEnv) writeKept() {
	a := w.pending
	if a == nil {
		return
	}
	w.pending = nil
	ctx := w.ctx
	if ctx.Err() != nil && w.keptWithStep() {
		ctx, _ = workflow.NewDisconnectedContext(ctx)
	}
	w.keepIn(ctx, KeepInput{Artifacts: a})
}

// keepStepChange is the version marker of the runs whose iterations' files
// go with their next step ([wfEnv.flushKeep]).
const keepStepChange = "keep-with-step"

// keptWithStep reports whether the run's files go with its next step.
func (w *wfEnv) keptWithStep() bool {
	return workflow.GetVersion(w.ctx, keepStepChange, workflow.DefaultVersion, 1) >= 1
}

// Keep implements [loop.Env]: the decision and feedback files are written in
// the run folder by the worker holding it (see [ActivityKeep]), after the
// save that follows ([wfEnv.flushKeep]).
func (w *wfEnv) Keep(_ context.Context, a state.Artifacts) error {
	if a.Escalation != nil {
		return nil // AwaitGuidance writes the report, as the run waits
	}
	w.pending = &a
	return nil
}

// Emit implements [loop.Env]: the event is kept in the workflow, for the query.
func (w *wfEnv) Emit(_ context.Context, ev state.Event) error {
	ev.Time = workflow.Now(w.ctx)
	w.events = append(w.events, ev)
	return nil
}
