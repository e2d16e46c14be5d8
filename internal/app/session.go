package app

import (
	"context"
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
	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/runname"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/ui"
)

// Process is what a session touches of the process it runs in.
type Process struct {
	Stdout io.Writer // results: a task graph's table, the JSON event stream
	Stderr io.Writer // progress and warnings a person reads; the agent's output with -v
	Now    func() time.Time
	Getwd  func() (string, error)
	// Notify tells a person what the runs do (nil: nobody); the caller
	// closes it when the process ends.
	Notify *notify.Notifier
	// User names the person at the keyboard (user@host) for the run's
	// history of hand-offs; nil: not known.
	User func() string
}

func (pr Process) user() string {
	if pr.User == nil {
		return ""
	}
	return pr.User()
}

// Progress is where progress lines go: a person's text to Stderr, so results
// on Stdout can be piped; the JSON event stream, which a program reads, to Stdout.
func (pr Process) Progress(json bool) io.Writer {
	if json || pr.Stderr == nil {
		return pr.Stdout
	}
	return pr.Stderr
}

// Session is one process's run of a loop: it holds the lock, the state and the
// local engine until the loop ends or is interrupted.
type Session struct {
	pr     Process
	p      *plan.Plan
	store  *state.Store
	lock   *state.Lock
	tree   *state.Lock     // the work tree's: one loop works in it at a time
	work   *gitx.Workspace // the work tree's workspace, opened as it was locked: the engine's
	st     *state.State
	screen *ui.Printer
	log    *slog.Logger
	// told are hand-offs made before the session's event log is open.
	told []state.HandoffRecorded
	// graph and task name the task graph and task the run is the loop of
	// ("" for a run of its own).
	graph, task string
}

// handoff keeps a hand-off's event for the session's event log.
func (s *Session) handoff(h state.HandoffRecorded) { s.told = append(s.told, h) }

// Open takes the run's lock and loads (or starts) its state. fresh asks for a new
// run even when an earlier one could be resumed. The caller runs the session or
// closes it.
func Open(pr Process, p *plan.Plan, screen *ui.Printer, log *slog.Logger, fresh bool) (*Session, error) {
	if err := runname.Check(p.Name); err != nil {
		return nil, &UsageError{Err: fmt.Errorf("run name %q: %w", p.Name, err)}
	}
	store := &state.Store{Root: p.StateDir}
	lock, err := store.Lock(p.Name)
	if err != nil {
		if le, ok := errors.AsType[*state.LockedError](err); ok {
			return nil, le
		}
		return nil, err // the store says which run and what failed
	}
	if r := lock.Recovered; r != nil {
		screen.Warnf("recovered the stale lock of %s: pid %d on %s is gone", p.Name, r.PID, r.Host)
		if n := len(lock.Orphans); n > 0 {
			screen.Warnf("ended %d process group(s) the dead run of %s left running (%s) before going on", n, p.Name, pgids(lock.Orphans))
		}
	}
	// A second loop in the work tree would undo this one's work as it rolls
	// back, and this one the other's: a task graph's tasks have worktrees of
	// their own.
	work := &gitx.Workspace{Dir: p.WorkDir}
	tree, err := lockWorkTree(*store, work, fmt.Sprintf("run %q", p.Name))
	if err != nil {
		lock.Release()
		return nil, err
	}
	s := &Session{pr: pr, p: p, store: store, lock: lock, tree: tree, work: work, screen: screen, log: log}
	st, err := store.Load(p.Name)
	if gap, ok := errors.AsType[*state.HistoryGapError](err); ok {
		screen.Warnf("%v", gap)
		err = nil
	}
	switch {
	case errors.Is(err, state.ErrNotFound):
	case err != nil:
		if ce, ok := errors.AsType[*state.CorruptError](err); ok {
			screen.Warnf("the state file of %s is unreadable (%v); it was moved to %s and the run starts fresh", p.Name, ce.Err, ce.MovedTo)
		} else {
			s.Close()
			return nil, fmt.Errorf("load the state of %s: %w", p.Name, err)
		}
	default:
		if !fresh {
			s.st = st
		} else if st.Status == state.StatusRunning || st.Status == state.StatusInterrupted || st.Status == state.StatusEscalated || st.Status == state.StatusAborted {
			screen.Warnf("the previous run of %s (%s) stopped as %s at iteration %d; starting a new run. To continue it instead: agentloop resume %s",
				p.Name, st.RunID, orStatus(st.Status), st.Iteration, p.Name)
		}
	}
	now := pr.Now()
	if s.st == nil {
		s.st = &state.State{
			Version: state.StateVersion, Name: p.Name, RunID: state.NewRunID(now), Procedure: p.Proc.Name,
			Status: state.StatusRunning, StartedAt: now, Segment: 1,
		}
		s.handoff(state.AddHandoff(s.st, state.Handoff{Kind: state.HandoffStart, At: now, By: pr.user()}))
	} else if err := checkWorkDir(p.StateDir, s.st.WorkDir); err != nil {
		s.Close()
		return nil, err
	}
	s.st.Args = p.Args
	if p.Issue != nil {
		s.st.Issue = p.Issue
	}
	if wd, err := pr.Getwd(); err == nil && wd != p.WorkDir {
		s.st.WorkDir = p.WorkDir
	}
	s.st.MaxIterations = p.Proc.Limits.MaxIterations
	s.st.FailureThreshold = p.Proc.Limits.FailureThreshold
	return s, nil
}

// State is the run's state as loaded (or started) by [Open].
func (s *Session) State() *state.State { return s.st }

// Close releases the run's lock, and its work tree's, without running it.
func (s *Session) Close() {
	s.tree.Release()
	s.lock.Release()
}

// checkWorkDir refuses a state file whose work_dir is not one of agentloop's
// own task worktrees (under the state folder's worktrees/): an agent is never
// run in a folder a state file names elsewhere.
func checkWorkDir(stateDir, workDir string) error {
	if workDir == "" {
		return nil
	}
	root, err := filepath.Abs(filepath.Join(stateDir, "worktrees"))
	if err == nil {
		var wd string
		if wd, err = filepath.Abs(workDir); err == nil {
			if rel, rerr := filepath.Rel(root, wd); rerr != nil || rel == "." || strings.HasPrefix(rel, "..") {
				err = fmt.Errorf("it is not a task worktree under %s", root)
			} else if fi, serr := os.Stat(wd); serr != nil || !fi.IsDir() {
				err = fmt.Errorf("it does not exist (a task worktree removed by hand?)")
			}
		}
	}
	if err != nil {
		return &UsageError{Err: fmt.Errorf("the state file says the run works in %s, but %v: refusing to run an agent there; start the run again with 'agentloop run' (or the task graph with 'agentloop run --tasks')", workDir, err)}
	}
	return nil
}

func pgids(cs []proc.Child) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "pgid %d", c.PGID)
	}
	return b.String()
}

func orStatus(s state.Status) string {
	if s == state.StatusRunning {
		return "running when its process died"
	}
	return string(s)
}

// Run runs the loop to its end for this session, saves the state, tells the
// person what to do next and releases the lock. The error is the loop's own
// (interrupted, or a failure of agentloop itself); how the run ended is in the
// outcome.
func (s *Session) Run(ctx context.Context) (loop.Outcome, error) {
	defer s.Close()
	// Every process the run starts is named in its lock while it runs, so that
	// if this process dies, the next one to take the lock ends them first.
	ctx = proc.WithGroups(ctx, proc.GroupsFrom(ctx).Sub(s.lock.SetChildren))
	s.st.Sessions = append(s.st.Sessions, state.Session{StartedAt: s.pr.Now()})
	runDir, err := s.store.MakeRunDir(s.p.Name, s.st.RunID)
	if err != nil {
		return loop.Outcome{}, fmt.Errorf("create the run folder: %w", err)
	}
	events, err := state.OpenEvents(filepath.Join(runDir, "events.jsonl"))
	if err != nil {
		s.screen.Warnf("events will not be recorded: %v", err)
	} else {
		defer events.Close()
		// A crash between saving an iteration's record and writing its event:
		// the event is written now, from the record.
		if missing := s.st.TotalIterations - events.Finished(); missing > 0 && missing <= len(s.st.History) {
			for _, rec := range s.st.History[len(s.st.History)-missing:] {
				if err := events.Append(state.RecoveredFinished(rec, s.p.Proc.Limits.Limits)); err != nil {
					s.screen.Warnf("events: %v", err)
					break
				}
			}
		}
	}
	for _, h := range s.told {
		ev := state.Event{Time: h.At, Iteration: s.st.Iteration, Segment: h.Segment, Data: h}
		if events != nil {
			if err := events.Append(ev); err != nil {
				s.screen.Warnf("events: %v", err)
			}
		}
	}
	s.told = nil
	env := s.local(ctx, runDir, events)
	defer func() {
		// The ledger's last sync (in env.Close) and the events' (in their
		// Close, which the defer above makes again, a no-op) at once: two
		// flushes of the disk overlap instead of following each other.
		closed := make(chan struct{})
		go func() { defer close(closed); env.Close() }()
		if events != nil {
			_ = events.Close()
		}
		<-closed
	}()
	ended := false // the loop's last save ended the session
	env.Store = runStore{store: s.store, runDir: runDir, now: s.pr.Now, ended: &ended}
	w := s.watch(runDir)
	env.Events = toldLog{log: env.Events, w: w}
	if t := s.p.Proc.Limits.Timeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t, fmt.Errorf("overall timeout of %s reached: %w", t, context.DeadlineExceeded))
		defer cancel()
	}
	if s.p.KeepAwake {
		// A Mac that sleeps mid-run stops the agent; keep_awake: false lets it.
		stop, err := proc.KeepAwake()
		defer stop()
		if err != nil && !errors.Is(err, proc.ErrNoKeepAwake) {
			s.screen.Warnf("the machine may sleep while the loop runs: %v", err)
		}
	}
	stopTicker := s.tick()
	spec := s.p.Spec()
	spec.NoCheckpoints = env.Work == nil
	out, runErr := loop.Run(ctx, s.steerable(env), spec, s.st)
	stopTicker()

	if !ended {
		// The loop's last save did not end the session (one cut short):
		// the session's end is saved here.
		last := &s.st.Sessions[len(s.st.Sessions)-1]
		last.EndedAt = s.pr.Now()
		if _, unsaved := errors.AsType[*loop.SaveError](runErr); !unsaved {
			if err := env.Save(context.WithoutCancel(ctx), s.st); err != nil {
				s.screen.Warnf("%v", err)
			}
		}
	}
	s.tellWaiting(ctx, env, w, out, runErr)
	s.epilogue(out, runDir, runErr)
	return out, runErr
}

// tick redraws the live status line every second while the loop runs.
func (s *Session) tick() func() {
	if !s.screen.Terminal() {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				s.screen.Tick()
			}
		}
	}()
	return func() {
		close(done)
		s.screen.ClearStatus()
	}
}

// epilogue tells the person what to do next.
func (s *Session) epilogue(out loop.Outcome, runDir string, runErr error) {
	w := s.screen
	base, err := s.pr.Getwd()
	if err != nil {
		base = s.p.WorkDir
	}
	rel := RelPath(base, runDir)
	if _, ok := errors.AsType[*agent.SetupError](runErr); ok {
		w.Linef("Logs: %s. Fix the agent's setup as said below, then run again", rel)
		return
	}
	if se, ok := errors.AsType[*evidence.StartError](runErr); ok {
		if se.After > 0 {
			w.Linef("Logs: %s. Make the gate's command run again, then: agentloop resume %s", rel, s.p.Name)
		} else {
			w.Linef("Logs: %s. Fix the gate's command as said below, then run again", rel)
		}
		return
	}
	if _, ok := errors.AsType[*loop.SaveError](runErr); ok {
		w.Linef("Logs: %s. The state kept is the last one saved", rel)
		return
	}
	switch out.Status {
	case state.StatusInterrupted:
		w.Linef("State saved. Resume with: agentloop resume %s", s.p.Name)
	case state.StatusEscalated:
		md := state.LatestEscalation(runDir)
		if md == "" {
			md, _ = state.EscalationFiles(runDir, s.st.Segment)
		}
		w.Linef("The loop needs you: read %s", RelPath(base, md))
		w.Linef("Then: agentloop resume %s --guidance \"...\"", s.p.Name)
	case state.StatusAborted:
		w.Linef("Logs: %s. To continue (with a higher limit if a budget stopped it): agentloop resume %s", rel, s.p.Name)
	default:
		w.Linef("Logs and state: %s", rel)
	}
}

// RelPath is p relative to base when it can be, else p.
func RelPath(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}

// previousSummary is the line printed on resume about the session before.
func previousSummary(st *state.State) string {
	if len(st.Sessions) == 0 {
		return ""
	}
	prev := st.Sessions[len(st.Sessions)-1]
	status := prev.Status
	if status == "" {
		status = st.Status
	}
	when := ""
	if !prev.EndedAt.IsZero() {
		when = fmt.Sprintf(" at %s after %s", prev.EndedAt.Format("15:04:05"), ui.Duration(prev.EndedAt.Sub(prev.StartedAt)))
	} else if !st.LastIterationAt.IsZero() {
		when = fmt.Sprintf(" (last iteration ended %s; the process died)", st.LastIterationAt.Format("15:04:05"))
	}
	s := fmt.Sprintf("Previous session: %s%s, %d %s; run total %d iterations, %s",
		orStatus(status), when, prev.Iterations, pluralize(prev.Iterations, "iteration"), st.TotalIterations, ui.Duration(st.Spend.Wall.Duration()))
	if st.FailureThreshold > 0 {
		s += fmt.Sprintf(", consecutive failures: %d/%d", st.ConsecutiveFailures, st.FailureThreshold)
	}
	return s + ", spent " + spendString(st.Spend)
}

func pluralize(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}

func spendString(sp state.Spend) string {
	u := sp.Total()
	tokens, cost := "tokens unknown", "cost unknown"
	if u.TokensKnown {
		tokens = fmt.Sprintf("%d tokens", u.TotalTokens())
	}
	if u.CostKnown {
		cost = fmt.Sprintf("$%.2f", u.CostUSD)
		if u.CostEstimated {
			cost += " (estimated)"
		}
	}
	return tokens + ", " + cost
}

// lockWorkTree takes the work tree holding ws.Dir for owner: the whole of it,
// its top directory, whatever folder of it the loop was started in, and with
// the lock in the repository's git folder, which every loop of it finds
// whatever its state folder. Outside git, the folder itself, locked in store.
// ws, opened here, is the workspace the run's engine checkpoints with: the
// repository is learned once ([gitx.Workspace.Open]).
func lockWorkTree(store state.Store, ws *gitx.Workspace, owner string) (*state.Lock, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if ws.Open(ctx) == nil {
		return store.LockWorkTree(ws.Top(), filepath.Join(ws.CommonDir(), "agentloop"), owner)
	}
	return store.LockWorkTree(ws.Dir, "", owner)
}
