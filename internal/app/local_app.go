package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
)

// Local is the application on this machine ([Engine]): each run a [Session]
// of this process, a task graph run by [RunGraph], the runs read from the
// state folder it was given.
type Local struct {
	sh       Shell
	stateDir string
}

// NewLocal is the application on this machine for the runs of the state
// folder stateDir (an absolute path).
func NewLocal(sh Shell, stateDir string) *Local {
	return &Local{sh: sh, stateDir: stateDir}
}

var _ Engine = (*Local)(nil)

// Close does nothing: the local engine holds nothing between calls.
func (l *Local) Close() {}

// Where is the state folder.
func (l *Local) Where() string { return l.stateDir }

func (l *Local) store() *state.Store { return &state.Store{Root: l.stateDir} }

// Run runs the run of p in this process until it ends or waits for a person.
func (l *Local) Run(ctx context.Context, p *plan.Plan, _ Server) (Outcome, error) {
	// A prompt that cannot be composed (a missing context file, a template
	// error) is a mistake to fix before anything runs.
	if _, err := p.Composer(p.StateDir).Compose(FirstStep()); err != nil {
		return Outcome{}, &UsageError{Err: err}
	}
	// So is an agent that cannot start: found before the baseline, with no state.
	if err := p.Preflight(l.sh.Host); err != nil {
		return Outcome{}, err
	}
	pr, done, err := l.notifying(ctx, p)
	if err != nil {
		return Outcome{}, err
	}
	defer done()
	screen, err := l.sh.Screen(ShownOf(p))
	if err != nil {
		return Outcome{}, err
	}
	for _, w := range p.Warnings() {
		screen.Warnf("%s", w)
	}
	s, err := Open(pr, p, screen, l.sh.Log(ShownOf(p)), true)
	if err != nil {
		return Outcome{}, err
	}
	return run(ctx, s)
}

// FirstStep is the first step of a run: its first iteration's first
// attempt, whose prompt a run composes before anything runs (and a dry run
// shows).
func FirstStep() loop.StepRequest {
	return loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Attempt: 1}
}

// run runs an opened session; its outcome is the run's status.
func run(ctx context.Context, s *Session) (Outcome, error) {
	out, err := s.Run(ctx)
	return Outcome{Status: out.Status}, err
}

// notifying is the shell's process with the notifier of p's receivers; done
// waits for the deliveries under way.
func (l *Local) notifying(ctx context.Context, p *plan.Plan) (Process, func(), error) {
	n, done, err := l.sh.Notifying(ctx, p)
	if err != nil {
		return Process{}, nil, err
	}
	pr := l.sh.Process
	pr.Notify = n
	return pr, done, nil
}

// Detach is the Temporal engine's: a local run lives in the process that runs it.
func (l *Local) Detach(context.Context, *plan.Plan, Server) error {
	return &UsageError{Err: errors.New("--detach starts a run on Temporal (--engine temporal) and returns; a local run lives in the process that runs it")}
}

// Follow is the Temporal engine's: a local run is shown where it runs.
func (l *Local) Follow(_ context.Context, name string, _ FollowOptions) (Outcome, error) {
	return Outcome{}, &UsageError{Err: fmt.Errorf("follow follows a run on Temporal (--engine temporal, or AGENTLOOP_ENGINE=temporal); a local run is shown by 'agentloop watch' or 'agentloop status %s'", name)}
}

// RunGraph runs a task graph on this machine ([RunGraph]), in the
// repository of the working directory.
func (l *Local) RunGraph(ctx context.Context, o GraphOptions) (Outcome, error) {
	return l.runGraph(ctx, l.sh.Process, o)
}

// runGraph runs a task graph in the repository pr.Getwd names, its
// notifications to the receivers of the graph's configuration.
func (l *Local) runGraph(ctx context.Context, pr Process, o GraphOptions) (Outcome, error) {
	repo, err := pr.Getwd()
	if err != nil {
		return Outcome{}, err
	}
	cfg, _, err := o.Configure(repo, nil)
	if err != nil {
		return Outcome{}, err
	}
	n, done, err := l.sh.Notifying(ctx, &plan.Plan{Notify: cfg.Notify})
	if err != nil {
		return Outcome{}, err
	}
	defer done()
	pr.Notify = n
	o.Getenv, o.Log, o.Host = l.sh.Getenv, l.sh.Log(Shown{}), l.sh.Host
	res, err := RunGraph(ctx, pr, o)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Graph: &res}, nil
}

// Guide queues guidance for the run name ([Guide]) and says when it is taken.
func (l *Local) Guide(_ context.Context, name, text string) error {
	res, err := Guide(l.stateDir, name, text, l.sh.user(), l.sh.Now())
	if err != nil {
		return err
	}
	if res.Running {
		fmt.Fprintf(l.sh.Stdout, "Guidance queued for %s (pid %d, in iteration %d): its next iteration takes it.\n", res.Name, res.PID, res.Iteration+1)
		return nil
	}
	fmt.Fprintf(l.sh.Stdout, "Guidance queued for %s (%s): it is taken when the run goes on: agentloop resume %s\n", res.Name, res.Status, res.Name)
	return nil
}

// Stop asks the process of the run name to stop ([Stop]) and says when.
func (l *Local) Stop(_ context.Context, name string, now bool) error {
	res, err := Stop(l.stateDir, name, now, l.sh.user(), l.sh.Now())
	if err != nil {
		return err
	}
	if now {
		fmt.Fprintf(l.sh.Stdout, "Interrupted %s (pid %d), as Ctrl-C does. Resume with: agentloop resume %s\n", name, res.PID, name)
		return nil
	}
	fmt.Fprintf(l.sh.Stdout, "%s (pid %d) stops when iteration %d ends. Resume with: agentloop resume %s\n", name, res.PID, res.Iteration+1, name)
	return nil
}

// Clean plans the clean of the state folder and the repository; the runs
// on a Temporal server are not asked about.
func (l *Local) Clean(ctx context.Context, o CleanOptions) (*CleanPlan, error) {
	if o.Remote != "" {
		return nil, &UsageError{Err: errors.New("--checkpoint-remote cleans the remote the Temporal workers share: give --engine temporal too, so that the runs still going on there are known")}
	}
	return PlanClean(ctx, o)
}

// Inbox lists what waits for a person in the state folder ([Waiting]).
func (l *Local) Inbox(context.Context) ([]decision.Waiting, error) {
	items, err := Waiting(l.stateDir)
	if err := l.skipUnreadable(err); err != nil {
		return nil, fmt.Errorf("read runs in %s: %w", l.stateDir, err)
	}
	return items, nil
}

// Look is the view of the state folder at now ([Look]).
func (l *Local) Look(_ context.Context, now time.Time) (report.View, error) {
	return Look(l.stateDir, now)
}

// Spend is the ledger every local run of the person's shares.
func (l *Local) Spend(_ context.Context, b Budgets) (Book, error) {
	var bk Book
	if !b.On {
		bk.NotKept = LedgerOff
	}
	if path := b.LedgerPath(l.sh.Getenv); !b.On && path != "" && absent(path) {
		bk.Where = path // turned off: shown empty, not made
		return bk, nil
	}
	led, err := l.openLedger(b)
	if err != nil {
		return Book{}, err
	}
	defer led.Close()
	if err := led.View(func(book *ledger.Book, now time.Time) { bk.Report = book.Report(b.Caps, now, led.IsAlive) }); err != nil {
		return Book{}, err
	}
	bk.Where = led.Path
	return bk, nil
}

// Approve approves each cap's soft limit in the ledger.
func (l *Local) Approve(_ context.Context, b Budgets, caps []string) error {
	led, err := l.openLedger(b)
	if err != nil {
		return err
	}
	defer led.Close()
	for _, name := range caps {
		c, _ := b.Cap(name)
		period, err := led.Approve(c, l.sh.user())
		if err != nil {
			return err
		}
		fmt.Fprintf(l.sh.Stdout, "Approved cap %s past its soft limit for %s: the loops it parked go on at their next look, up to its hard limit.\n", c.Name, period)
	}
	return nil
}
