package temporal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/agentloop/agentloop/internal/plan"
)

// Rebuild is how a worker rebuilds a run's plan ([Steps.Plan]): the
// configuration of the run's work tree on this machine (WorkTree, else the
// path the run was started at) with the run's recorded flags on top; for a
// task of a graph, by the rule every resume of a task follows
// ([plan.ResumeTask]). A run whose recorded flags name a command Trust does
// not let this worker run is refused.
type Rebuild struct {
	// WorkTree is this worker's clone of the runs' repository ("" for the
	// path each run names, [RunRef.On]).
	WorkTree string
	Trust    CommandTrust
	// Read reads what a worker needs of a run's recorded flags (the command
	// line parses them).
	Read func(recorded []string) (RunFlags, error)
	// Configure is the configuration of the repository at a folder with a
	// run's recorded flags on top, none given now.
	Configure plan.Configure
	Getenv    func(string) string
}

// RunFlags is what a worker needs of a run's recorded flags.
type RunFlags struct {
	// Commands are the command lines the flags ask a worker to run.
	Commands []InputCommand
	// Verbose says the run logs every step (-v).
	Verbose bool
}

// InputCommand is a command line a run's workflow input asks a worker to
// run, with what names it: a flag (--agent-cmd, --gate) or a task's gate
// in the task file the graph was started with.
type InputCommand struct{ Flag, Line string }

// Plan is the plan of the run r on this worker ([Rebuild]).
func (b Rebuild) Plan(_ context.Context, r RunRef) (*plan.Plan, error) {
	flags, err := b.Read(r.Args)
	if err != nil {
		return nil, err
	}
	r = r.On(b.WorkTree)
	cmds := flags.Commands
	if r.Task != nil {
		// A task's gates come with the workflow input (its task file as the
		// graph was started), like the recorded flags.
		t := r.Task.Member().Task
		for _, g := range t.Gates {
			cmds = append(cmds, InputCommand{Flag: "task " + t.ID + "'s gate", Line: g.Run})
		}
	}
	// The configuration's own plan: without the run's recorded flags or a
	// task's gates, both of which come with the workflow input; of a task,
	// its procedure's.
	own := func() *plan.Plan {
		p, _ := b.own(r)
		return p
	}
	if err := b.Trust.check(r.Name, cmds, own); err != nil {
		return nil, err
	}
	return b.plan(r, r.Args, flags.Verbose)
}

// own is the plan the configuration of r's work tree alone makes of its
// procedure: what the worker's operator defined, nothing the workflow input
// names.
func (b Rebuild) own(r RunRef) (*plan.Plan, error) {
	dir, procedure := r.WorkDir, r.Procedure
	if r.Task != nil {
		m := r.Task.Member()
		dir, procedure = m.Repo, m.Task.Procedure
	}
	cfg, _, err := b.Configure(dir, nil)
	if err != nil {
		return nil, err
	}
	return plan.Resolve(cfg, procedure, plan.Options{WorkDir: dir, Getenv: b.Getenv})
}

// plan is the plan of r with the flags recorded on top of its work tree's
// configuration.
func (b Rebuild) plan(r RunRef, recorded []string, verbose bool) (*plan.Plan, error) {
	if r.Task != nil {
		p, err := plan.ResumeTask(r.Task.Member(), recorded, b.Configure, b.Getenv, verbose)
		if err != nil {
			return nil, err
		}
		p.Args = r.Args
		return p, nil
	}
	cfg, _, err := b.Configure(r.WorkDir, recorded)
	if err != nil {
		return nil, err
	}
	p, err := plan.Resolve(cfg, r.Procedure, plan.Options{WorkDir: r.WorkDir, Getenv: b.Getenv, Verbose: verbose})
	if err != nil {
		return nil, err
	}
	p.Name, p.Args = r.Name, r.Args
	return p, nil
}

// CommandTrust says which commands a worker runs when a run's workflow input
// names them (--agent-cmd, --gate): whoever can start a workflow in the
// namespace writes that input, so by default a worker runs only the commands
// its own clone's configuration defines (agents by name, the procedure's
// gates) and those its operator allowed.
type CommandTrust struct {
	TrustInput bool     // worker --trust-input-commands: run whatever the input names
	Allow      []string // worker --allow-cmd: these command lines, exactly
}

// check refuses a run whose input names a command the worker does not run:
// not allowed, and not a gate of the configuration's own plan of the
// procedure (own, nil when the configuration alone makes none). The error
// names the command, the flag that trusts it, and what trusting means.
func (t CommandTrust) check(run string, cmds []InputCommand, own func() *plan.Plan) error {
	if t.TrustInput {
		return nil
	}
	var defined []string
	var refused []string
	for _, c := range cmds {
		if slices.Contains(t.Allow, c.Line) {
			continue
		}
		if defined == nil {
			defined = []string{}
			if p := own(); p != nil {
				for _, g := range p.Gates {
					defined = append(defined, g.Command)
				}
			}
		}
		if c.Flag != "--agent-cmd" && slices.Contains(defined, c.Line) { // a gate, by flag or task
			continue
		}
		refused = append(refused, fmt.Sprintf("%s %q", c.Flag, c.Line))
	}
	if len(refused) == 0 {
		return nil
	}
	return &RefusedError{Run: run, Commands: refused}
}

// RefusedError is a worker's refusal of a run whose workflow input names
// commands the worker does not run ([CommandTrust]): a configuration error,
// fixed on the worker (--allow-cmd) or in the run's flags, never the agent's
// failure. It crosses from the activity to the workflow as an application
// error of its own type, said once: the run stops with it as its reason, and
// its workflow ends in it for whoever follows the run ([Refusal]).
type RefusedError struct {
	Run      string
	Commands []string // each as its flag and command line: --gate "make lint"
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("run %s asks this worker to run %s, which its configuration does not define: a worker runs only its own configuration's agents and gates and the commands it was started with --allow-cmd CMD (repeatable) for; start it with --allow-cmd for each, or with --trust-input-commands to run whatever a run's workflow input names (then whoever can start a workflow in the namespace can run commands on this worker)",
		e.Run, strings.Join(e.Commands, ", "))
}

// refusedErrorType is the application error type of a [RefusedError].
const refusedErrorType = "agentloop.Refused"

// planError is the error of a step whose run's plan could not be rebuilt on
// this worker: final, and a refusal said once, without the wrapping around
// it, as a [RefusedError] the workflow and the run's follower read back.
func planError(err error) error {
	if re, ok := errors.AsType[*RefusedError](err); ok {
		return temporal.NewNonRetryableApplicationError(re.Error(), refusedErrorType, nil, *re)
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), "agentloop.Plan", err)
}

// Refusal is the [RefusedError] somewhere in err, the error of a step or of
// a run's workflow; false when there is none.
func Refusal(err error) (*RefusedError, bool) {
	ae := refusal(err)
	if ae == nil {
		return nil, false
	}
	var re RefusedError
	if !ae.HasDetails() || ae.Details(&re) != nil {
		return nil, false
	}
	return &re, true
}

// refusal is the application error of a [RefusedError] in err's chain, nil
// when there is none.
func refusal(err error) *temporal.ApplicationError {
	for ; err != nil; err = errors.Unwrap(err) {
		if ae, ok := err.(*temporal.ApplicationError); ok && ae.Type() == refusedErrorType { //nolint:errorlint // each link, not the first of its type
			return ae
		}
	}
	return nil
}
