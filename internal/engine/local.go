package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tokens"
)

// Local is the local engine's [loop.Env].
type Local struct {
	Name    string // run name
	RunID   string
	WorkDir string
	RunDir  string // .agentloop/runs/NAME/RUNID
	// LivePath is the file that says what the loop is doing now, for another
	// process to show (agentloop watch): rewritten at each phase change and,
	// at most once a second, as the agent's usage grows. "": none.
	LivePath string
	Task     string // what the run is asked to do, for the reviewer and reports
	Agent    loop.AgentRunner
	Gates    loop.GateRunner // nil: no gates
	Reviewer loop.Reviewer   // nil: no reviewer
	Work     Workspace       // nil: not a git work tree
	Prompt   loop.Prompter
	Store    Store
	Events   EventLog
	Screen   Screen
	Echo     io.Writer // agent output to the terminal when verbose
	Now      func() time.Time
	Sleep    func(ctx context.Context, d time.Duration) error
	Log      *slog.Logger
	// Started, when set, is told the checkpoint an iteration starts from as
	// soon as it is taken, before the agent runs (an engine of many workers
	// shares it, so that another can rebuild the work tree from it). An
	// error (ctx's, ended meanwhile) ends the attempt before its agent runs.
	Started func(ctx context.Context, iteration int, checkpoint string) error

	RateLimit RateLimitPolicy
	// TokenBudget is the prompt size above which a warning is shown (0: none).
	TokenBudget int
	// EscalationDiffLines, when set, puts the run's diff (capped at this many
	// lines) in the escalation report.
	EscalationDiffLines int

	// SetAside is the decider's rule of the failures outside the task
	// ([loop.Parts.SetAside]); nil: nothing is set aside.
	SetAside func(told string, baseline []evidence.GateResult, ev evidence.Iteration) (evidence.Iteration, []string)

	// Spend, when set, is the spend the run shares with the user's other
	// loops: each iteration is reserved in its ledger and settled after.
	Spend *SharedSpend

	beat   func()   // stops the heartbeat of the attempt in progress (see inflight.go)
	marked inflight // the marker of the attempt in progress, while beat is set
	held   *held    // the reservation of the iteration about to run (spend.go)
	// clock is the running iteration's time budget, paused while the agent
	// waits for its account's usage limit to reset (nil: no time budget).
	clock *budgetClock
	// switchTo is the fallback agent the iterations run on while the
	// configured agent's account is at its usage limit (spend.go).
	switchTo string
	// switchFor and switchUntil are the agent switchTo stands in for and the
	// reset of its usage limit, when the ledger said them.
	switchFor   string
	switchUntil time.Time
	live        live // what the loop is doing now (see live.go)
}

// RateLimitPolicy says how long to wait on rate limits and transient failures.
type RateLimitPolicy struct {
	MaxWait      time.Duration                   // total wait per iteration before a fallback or giving up
	Fallback     []string                        // agents to switch to, in order
	MaxTransient int                             // transient failures retried per iteration
	Backoff      func(attempt int) time.Duration // exponential with jitter, capped
}

// Step implements [loop.Env]. An iteration is stopped when the run's time
// budget runs out ([loop.ErrTimeRanOut]), as the agent is when its live usage
// crosses the token or cost budget; a pause for an account's usage limit is
// not billed: the budget's clock stands still through it, and the step's
// result says how long it was ([state.StepResult.Paused]).
func (l *Local) Step(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	parent := ctx
	if left := r.Remaining.Duration; r.Kind == loop.StepIteration && left > 0 {
		var stop func()
		ctx, l.clock, stop = withBudgetClock(ctx, left)
		defer func() { stop(); l.clock = nil }()
	}
	if r.Kind == loop.StepIteration {
		r.Remaining = l.withinHeld(r.Remaining)
		if r.Agent == "" && r.AwaitReset.IsZero() {
			r.Agent = l.switchTo
		}
	}
	res, err := l.step(ctx, r)
	if r.Kind == loop.StepIteration {
		l.settle(res.Iteration)
	}
	if err != nil && parent.Err() == nil && errors.Is(context.Cause(ctx), loop.ErrTimeRanOut) {
		err = loop.ErrTimeRanOut
	}
	if err != nil && !res.Started.IsZero() && res.Finished.IsZero() {
		res.Finished = l.Now() // a step cut short: its time counts all the same
	}
	return res, err
}

func (l *Local) step(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	switch r.Kind {
	case loop.StepBaseline:
		return l.baseline(ctx)
	case loop.StepReserve:
		return l.reserve(ctx, r)
	case loop.StepIteration:
		res, err := l.iteration(ctx, r)
		if err != nil && res.Start != "" {
			res.Checkpoint = l.keepCut(ctx, r, res.Start)
		}
		return res, err
	case loop.StepRollback:
		start := l.Now()
		if l.Work == nil {
			return state.StepResult{}, errors.New("roll back: the work tree is not a git repository")
		}
		err := l.restore(ctx, r)
		return state.StepResult{Started: start, Finished: l.Now(), Checkpoint: r.Checkpoint}, err
	}
	return state.StepResult{}, fmt.Errorf("unknown step %q", r.Kind)
}

// restore puts the work tree back at r.Checkpoint. Whatever the tree holds
// beyond r.Expect — the checkpoint agentloop last left it at — is kept first in
// a backup ref, and a warning says what and how to get it back: a person's
// work is never thrown away by a restore. A signal does not cut a restore
// half-way (the tree would be neither where the state says nor where it was):
// it runs to its end, within restoreTimeout, and the loop stops after it.
func (l *Local) restore(ctx context.Context, r loop.StepRequest) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
	defer cancel()
	backup := CheckpointRefs(l.Name, l.RunID) + fmt.Sprintf("backup-%d", r.Seq)
	msg := fmt.Sprintf("agentloop %s: the work tree before %s", l.Name, cmp.Or(r.Why, "a restore"))
	kept, err := l.Work.RestoreKeeping(ctx, r.Checkpoint, r.Expect, backup, msg)
	if kept.Ref != "" {
		l.warn("before it could %s, the work tree held changes agentloop did not make or record; %s", cmp.Or(r.Why, "restore a checkpoint"), kept.Hint())
	}
	return err
}
func (l *Local) baseline(ctx context.Context) (state.StepResult, error) {
	start := l.Now()
	res := state.StepResult{Started: start}
	if l.Gates == nil {
		res.Finished = l.Now()
		return res, nil
	}
	dir, err := state.NewDir(filepath.Join(l.RunDir, "baseline"))
	if err != nil {
		return res, err
	}
	l.phase("gates")
	gates, err := l.Gates.RunGates(loop.WithGateStart(ctx, l.gateStarted), l.WorkDir, dir, nil)
	l.warnOutput(gates)
	for _, g := range gates {
		if g.TimedOut > 0 {
			// Every iteration would time out the same way if the suite is
			// only slow: say how to give it the time it needs.
			l.warn("gate %s ran out of its time limit (%s) on the untouched tree: if it is only slow, give it more with its timeout: or --gate-timeout (0: none); if it hangs, that is the failure to fix", g.Name, g.TimedOut)
		}
	}
	res.Baseline, res.Finished = gates, l.Now()
	if err == nil {
		if serr := evidence.StartErrors(gates, 0); serr != nil {
			// A gate that cannot start is a configuration error, found before any agent runs.
			return res, &loop.StopError{Status: state.StatusAborted, Reason: "a gate cannot start", Err: serr}
		}
	}
	return res, err
}

func (l *Local) iteration(ctx context.Context, r loop.StepRequest) (state.StepResult, error) {
	start := l.Now()
	res := state.StepResult{Started: start}
	seq := attemptSeq(r)
	l.liveAttempt(r.Iteration, seq)
	dir, err := state.NewAttemptDir(l.RunDir, seq)
	if err != nil {
		return res, fmt.Errorf("create the folder of attempt %d: %w", seq, err)
	}
	if l.Gates != nil {
		if err := os.Mkdir(filepath.Join(dir, "gates"), 0o700); err != nil {
			return res, fmt.Errorf("create the folder of attempt %d: %w", seq, err)
		}
	}
	var before string
	if l.Work != nil {
		c, _, err := l.Work.Start(ctx, l.ref(seq, "start"), fmt.Sprintf("agentloop %s: before attempt %d (iteration %d)", l.Name, seq, r.Iteration))
		if err != nil && ctx.Err() != nil {
			// A signal as the attempt starts: its agent never runs, and the
			// tree is left as it is (nothing of the attempt is in it).
			return res, context.Cause(ctx)
		}
		if err != nil {
			l.warn("snapshot the work tree before iteration %d: %v", r.Iteration, err)
		}
		before = c
	}
	res.Start = before
	l.markStart(r, seq, start, before)
	defer l.stopBeat()
	if before != "" && l.Started != nil {
		if err := l.Started(ctx, seq, before); err != nil {
			return res, err
		}
	}

	text, err := l.Prompt.Compose(r)
	if err != nil {
		return res, fmt.Errorf("compose the prompt of iteration %d: %w", r.Iteration, err)
	}
	if err := state.WriteFileOnce(filepath.Join(dir, "prompt.md"), []byte(text), state.FilePerm); err != nil {
		return res, err
	}
	if r.Iteration == 1 && !l.Prompt.HasTask(r) {
		l.warn("the agent has no task: no context was given (or the context files are empty) and the gates found nothing failing, so the prompt holds only the procedure's general instructions; give the task with --context FILE|TEXT")
	}
	// A token is at least a byte: a prompt no longer than the budget in bytes
	// is within it, and the tokenizer (3 MiB of vocabulary) is not loaded.
	if l.TokenBudget > 0 && len(text) > l.TokenBudget {
		if n := tokens.Count(text); n > l.TokenBudget {
			l.warn("prompt of iteration %d is %d tokens, over the token budget of %d", r.Iteration, n, l.TokenBudget)
		}
	}

	ev := evidence.Iteration{N: r.Iteration, Started: start}
	checkRecords := l.guardRecords(ctx, "") // records.go
	agentRes, waited, err := l.runAgent(ctx, loop.AgentRequest{
		Iteration: r.Iteration, Agent: r.Agent, AwaitReset: r.AwaitReset, Prompt: text, WorkDir: l.WorkDir, IterDir: dir,
		Timeout: r.Timeout, Echo: l.Echo, Started: start, Remaining: r.Remaining,
	})
	res.Waited, res.Paused = waited.all, waited.paused
	ev.Agent = agentRes
	checkRecords(ctx, &ev)
	if agentRes.Result != "" {
		// The agent's own last words (redacted by its runner): a report
		// shows them only as its claim.
		l.keep(filepath.Join(dir, state.AnswerFile), []byte(agentRes.Result))
	}
	// From here on an attempt that ends without a result (a signal, a stop)
	// has spent what its agent spent: the result carries it for the loop to
	// count, wherever the attempt was cut.
	cut := func(err error) (state.StepResult, error) {
		res.Iteration = ev
		return res, err
	}
	if err != nil {
		return cut(err)
	}

	if l.Gates != nil && ctx.Err() == nil {
		l.phase("gates")
		ev.Gates, err = l.Gates.RunGates(loop.WithGateStart(ctx, l.gateStarted), l.WorkDir, filepath.Join(dir, "gates"), r.Baseline)
		if err != nil {
			return cut(err)
		}
		l.warnOutput(ev.Gates)
		if serr := evidence.StartErrors(ev.Gates, r.Iteration); serr != nil {
			// Not the agent's failure: the environment changed since the baseline.
			return cut(&loop.StopError{Status: state.StatusAborted, Reason: "infrastructure: a gate could not start", Err: serr})
		}
	}
	if ctx.Err() != nil {
		return cut(context.Cause(ctx))
	}

	var diff string
	if l.Work != nil {
		commit, tree, err := l.Work.Snapshot(ctx, l.ref(seq, ""), fmt.Sprintf("agentloop %s: attempt %d (iteration %d)", l.Name, seq, r.Iteration))
		if err != nil && ctx.Err() == nil {
			l.warn("checkpoint iteration %d: %v", r.Iteration, err)
		} else if err == nil {
			res.Checkpoint = commit
		}
		if before != "" {
			froms := []string{before}
			if seq > 1 {
				// What the run as a whole did to the tests, for the decision
				// engine: an iteration that changes nothing after one that
				// deleted them does not show it. From the same git process.
				froms = append(froms, l.ref(1, "start"))
			}
			d := l.Work.Diffs(ctx, froms...)
			ev.Diff, diff, err = d[0].Facts, d[0].Text, d[0].Err
			if err != nil {
				l.warn("diff of iteration %d: %v", r.Iteration, err)
			}
			if len(d) > 1 {
				if since, serr := d[1].Facts, d[1].Err; serr == nil || errors.Is(serr, gitx.ErrTruncated) {
					ev.Diff.SinceStart = &since
				} else {
					l.warn("diff of the run since its start: %v", serr)
				}
			}
		}
		ev.Diff.TreeHash = tree
		if before != "" && err == nil && ev.Agent.Outcome == evidence.OutcomeSucceeded && ev.Diff.Empty() {
			ev.Agent.Outcome = evidence.OutcomeNoChange
		}
		if diff != "" {
			l.keep(filepath.Join(dir, "diff.patch"), []byte(diff))
		}
	}
	if ctx.Err() != nil {
		// A signal during the checkpoint: the attempt is cut, never recorded
		// as finished with a checkpoint missing.
		return cut(context.Cause(ctx))
	}

	// The reviewer is asked when the gates pass as the decider judges them:
	// a failure there before the run, outside the task, set aside.
	judged, aside := ev, []string(nil)
	if l.SetAside != nil {
		judged, aside = l.SetAside(r.Told, r.Baseline, ev)
	}
	if l.Reviewer != nil && judged.RequiredGatesPassed() && !ev.Agent.Failed() && ctx.Err() == nil {
		l.phase("review")
		checkRecords := l.guardRecords(ctx, "the reviewer") // an agent too
		rv, err := l.Reviewer.Review(ctx, loop.ReviewRequest{
			Iteration: r.Iteration, Task: reviewTask(l.Task, r), Diff: diff, Gates: ev.Gates, OutsideTask: aside,
			IterDir: dir, WorkDir: l.WorkDir,
		})
		checkRecords(ctx, &ev)
		if err != nil {
			if ctx.Err() != nil {
				return cut(context.Cause(ctx))
			}
			if se, ok := errors.AsType[*agent.SetupError](err); ok {
				// The reviewer cannot work until someone fixes its setup.
				return cut(&loop.StopError{Status: state.StatusAborted, Reason: se.Headline(), Err: se})
			}
			l.warn("reviewer of iteration %d: %v", r.Iteration, err)
			rv = evidence.Review{Verdict: evidence.VerdictUnknown, Summary: err.Error()}
		}
		ev.Review = &rv
		if b, err := json.MarshalIndent(rv, "", "  "); err == nil {
			l.keep(filepath.Join(dir, state.ReviewFile), b)
		}
	}
	ev.Finished = l.Now()
	res.Iteration, res.Finished = ev, ev.Finished
	if l.Work != nil {
		if err := l.Work.AfterIteration(ctx, r.Iteration, fmt.Sprintf("agentloop: %s iteration %d", l.Name, r.Iteration)); err != nil {
			l.warn("%v", err)
		}
	}
	return res, nil
}

// reviewTask is the task the reviewer judges by: the run's task and the
// guidance people gave the running loop (agentloop guide), which the
// implementer was told to follow too.
func reviewTask(task string, r loop.StepRequest) string {
	if r.Steer == "" {
		return task
	}
	return strings.TrimSpace(task + "\n\nGuidance from a person watching the loop, which the implementer was told to follow:\n" + r.Steer)
}

// Restart puts the work tree back where attempt seq started, for a step run
// again after the process that ran it died part way: the attempt's start
// checkpoint when it was taken, else fallback (the run's last checkpoint). It
// returns the checkpoint restored, "" when there was none to restore.
func (l *Local) Restart(ctx context.Context, seq int, fallback string) (string, error) {
	if l.Work == nil {
		return "", nil
	}
	for _, c := range []string{l.ref(seq, "start"), fallback} {
		if c == "" {
			continue
		}
		if err := l.Work.Restore(ctx, c); err == nil {
			return c, nil
		} else if c == fallback {
			return "", err
		}
	}
	return "", nil
}

// keepCut keeps what a cut attempt left in the work tree: a checkpoint under
// its cut ref and its partial diff in its folder. The checkpoint is returned
// ("" when it could not be taken); the tree is left as it is.
func (l *Local) keepCut(ctx context.Context, r loop.StepRequest, start string) string {
	seq := attemptSeq(r)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cutTimeout)
	defer cancel()
	commit, _, err := l.Work.Snapshot(ctx, l.ref(seq, "cut"), fmt.Sprintf("agentloop %s: what the cut attempt %d left", l.Name, seq))
	if err != nil {
		l.warn("keep what the cut attempt %d left: %v", seq, err)
		return ""
	}
	if _, diff, err := l.Work.Diff(ctx, start); err == nil && diff != "" {
		l.keep(filepath.Join(state.IterDir(l.RunDir, seq), "diff.patch"), []byte(diff))
	}
	return commit
}

// cutTimeout bounds the work of keeping a cut attempt, done after the signal.
const cutTimeout = 30 * time.Second

// restoreTimeout bounds a restore of the work tree, which a signal does not
// cut.
const restoreTimeout = time.Minute

// attemptSeq is the attempt number of an iteration request; a request of an
// older workflow history has none, and its iteration number stands for it.
func attemptSeq(r loop.StepRequest) int {
	if r.Seq > 0 {
		return r.Seq
	}
	return r.Iteration
}

// AwaitGuidance implements [loop.Env]: the local engine suspends the run until
// `agentloop resume --guidance`; its report is written already ([Local.Keep]).
func (l *Local) AwaitGuidance(ctx context.Context, e state.Escalation) (state.Guidance, error) {
	if e.Report != nil {
		rep := *e.Report
		rep.Run = l.Name // each option says the command that takes it
		e.Report = &rep
	}
	_ = l.Emit(ctx, state.Event{Data: NeedsYou(e, l.Name, l.RunDir)})
	return state.Guidance{}, loop.ErrSuspended
}

// WriteEscalation writes an escalation's report in the run folder, each
// option with the command that takes it and, with EscalationDiffLines, what
// the run changed.
func (l *Local) WriteEscalation(ctx context.Context, e state.Escalation) error {
	if e.Report != nil {
		rep := *e.Report
		rep.Run = l.Name // each option says the command that takes it
		if l.EscalationDiffLines > 0 && l.Work != nil {
			rep.Diff = l.runDiff(ctx)
		}
		e.Report = &rep
	}
	return WriteEscalation(l.RunDir, e)
}

// runDiff is what the run changed since its first iteration started, capped at
// EscalationDiffLines lines.
func (l *Local) runDiff(ctx context.Context) string {
	_, diff, err := l.Work.Diff(context.WithoutCancel(ctx), l.ref(1, "start"))
	if err != nil {
		l.Log.Warn("diff for the escalation report", "error", err)
		return ""
	}
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) > l.EscalationDiffLines {
		diff = strings.Join(lines[:l.EscalationDiffLines], "") + fmt.Sprintf("\n[… %d more lines: git diff %s]\n", len(lines)-l.EscalationDiffLines, l.ref(1, "start"))
	}
	return diff
}

// Save implements [loop.Env].
func (l *Local) Save(_ context.Context, st *state.State) error {
	if err := l.Store.Save(st); err != nil {
		return err
	}
	l.saved(st)
	return nil
}

// Keep implements [loop.Env]: the decision document goes to the iteration's
// decision.yaml, the feedback for the next prompt to its feedback.md, an
// escalation to its report ([Local.WriteEscalation]).
func (l *Local) Keep(ctx context.Context, a state.Artifacts) error {
	if a.Escalation != nil {
		return l.WriteEscalation(ctx, *a.Escalation)
	}
	dir := state.IterDir(l.RunDir, cmp.Or(a.Seq, a.Iteration))
	var errs []error
	if a.Decision != nil {
		b, err := a.Decision.YAML()
		if err == nil {
			err = state.WriteFileOnce(filepath.Join(dir, state.DecisionFile), b, state.FilePerm)
		}
		errs = append(errs, err)
	}
	if a.Feedback != "" {
		errs = append(errs, state.WriteFileOnce(filepath.Join(dir, "feedback.md"), []byte(a.Feedback), state.FilePerm))
	}
	return errors.Join(errs...)
}

// Emit implements [loop.Env]: the event goes to events.jsonl and the screen.
func (l *Local) Emit(_ context.Context, ev state.Event) error {
	ev.Time = l.Now()
	if l.Screen != nil {
		l.Screen.Event(ev)
	}
	if l.Events == nil {
		return nil
	}
	if err := l.Events.Append(ev); err != nil {
		l.Log.Warn("event not recorded", "type", ev.Type(), "error", err)
		return err
	}
	return nil
}

// Close releases what the engine holds between steps (the workspace's private
// index). The engine can still be used after it.
func (l *Local) Close() {
	if l.Spend != nil && l.Spend.Ledger != nil {
		_ = l.Spend.Ledger.Close()
	}
	if c, ok := l.Work.(interface{ Close() }); ok {
		c.Close()
	}
}

// CheckpointRefs is the hidden ref folder of the checkpoints of run name's
// run runID (each iteration's start and end).
func CheckpointRefs(name, runID string) string {
	return fmt.Sprintf("refs/agentloop/%s/%s/", name, runID)
}

func (l *Local) ref(n int, suffix string) string {
	ref := fmt.Sprintf("%siter-%d", CheckpointRefs(l.Name, l.RunID), n)
	if suffix != "" {
		ref += "-" + suffix
	}
	return ref
}

func (l *Local) phase(p string) {
	if l.Screen != nil {
		l.Screen.Phase(p)
	}
	l.livePhase(p)
}

// warnOutput tells a person what of each gate's output could not be read, as
// gotestsum lists the lines it could not parse: a gate judged on less than its
// whole output must not look cleanly green.
func (l *Local) warnOutput(gates []evidence.GateResult) {
	for _, g := range gates {
		if note := g.OutputProblems(); note != "" {
			l.warn("gate %s: %s", g.Name, note)
		}
	}
}

// warn tells of something that went wrong without stopping the run, as the
// loop's own warnings are told: a warning event, shown and recorded.
func (l *Local) warn(format string, args ...any) {
	l.emitWarning(state.Warning{Message: fmt.Sprintf(format, args...)})
}

// emitWarning is [Local.warn] of a warning that carries its figures.
func (l *Local) emitWarning(w state.Warning) {
	l.Log.Debug(w.Message)
	_ = l.Emit(context.Background(), state.Event{Data: w})
}

// keep writes an artifact the loop does not need to go on (a diff, a review, a
// decision document): a failure is a warning, not the end of the iteration.
func (l *Local) keep(path string, b []byte) {
	if err := state.WriteFileOnce(path, b, state.FilePerm); err != nil {
		l.warn("%v", err)
	}
}
