package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/ui"
)

// Engine is the application on one engine: what each command of the
// command line asks of the runs and graphs, on this machine ([Local]) or on
// a Temporal server ([Fleet], built with the tag temporal). A
// command chooses the engine once, calls it, and maps what it returns to its
// exit; what an engine cannot do it answers with a [UsageError] saying so.
// Confirmations (a guidance queued, a stop asked, a cap approved) are said on
// the shell's Stdout; a run's progress on its screen ([Shell.Screen]).
type Engine interface {
	// Run runs the run of p and follows it until it ends or waits for a person.
	Run(ctx context.Context, p *plan.Plan, o Server) (Outcome, error)
	// Detach starts the run of p and returns, saying how to follow it.
	Detach(ctx context.Context, p *plan.Plan, o Server) error
	// RunGraph runs a task graph until it ends or every task still running
	// waits for a person.
	RunGraph(ctx context.Context, o GraphOptions) (Outcome, error)
	// Resume continues the run name ("": the only one there is to resume) by
	// the rules both engines follow.
	Resume(ctx context.Context, name string, o ResumeOptions) (Outcome, error)
	// Follow follows the run name as Run does, from its events so far.
	Follow(ctx context.Context, name string, o FollowOptions) (Outcome, error)
	// Guide queues guidance for the running run name.
	Guide(ctx context.Context, name, text string) error
	// Stop ends the run name after its iteration, or at once (now).
	Stop(ctx context.Context, name string, now bool) error
	// Status is a row per run (those named name when not ""; with runID, its
	// run of that id), and the sentence to say when there is none.
	Status(ctx context.Context, name, runID string) (rows []report.StatusRow, none string, err error)
	// Report is the report of the run or task graph name ("": the only one);
	// with runID, of its run of that id; the last lastEvents events (0: all).
	Report(ctx context.Context, name, runID string, lastEvents int) (report.Run, error)
	// Clean plans what clean removes, weighing the runs the engine knows.
	Clean(ctx context.Context, o CleanOptions) (*CleanPlan, error)
	// Inbox lists what waits for a person.
	Inbox(ctx context.Context) ([]decision.Waiting, error)
	// Look is what `agentloop watch` shows at now; what cannot be read is
	// left out and named in the error, next to the rest.
	Look(ctx context.Context, now time.Time) (report.View, error)
	// Where names where the runs are read from, for a person.
	Where() string
	// Spend is the spend ledger the runs share, judged under b's caps.
	Spend(ctx context.Context, b Budgets) (Book, error)
	// Approve approves the soft limit of each cap of b named, each said on
	// Stdout.
	Approve(ctx context.Context, b Budgets, caps []string) error
	// Close lets go of what the engine holds (a connection).
	Close()
}

// Shell is what the command line gives the application: its process, and
// how a run is shown, logged and notified.
type Shell struct {
	Process
	Getenv func(string) string
	// Screen is the printer a run is shown on (the flags it recorded, and
	// those given now).
	Screen func(Shown) (*ui.Printer, error)
	// Log is the diagnostic log of a run, as Screen's flags say.
	Log func(Shown) *slog.Logger
	// Notifying is the notifier of the receivers p configures (nil: none),
	// and done, which waits for the deliveries under way once the run is
	// followed no more.
	Notifying func(ctx context.Context, p *plan.Plan) (n *notify.Notifier, done func(), err error)
	// Host is what the agent preflight reads of this machine.
	Host agent.Host
}

// Shown is what of a run's plan says how the run is shown and logged.
type Shown struct {
	// Args are the flags the run recorded.
	Args []string
	// LogFormat is the configuration's log format ("": text).
	LogFormat string
}

// ShownOf is what of p says how its run is shown ([Shown]).
func ShownOf(p *plan.Plan) Shown { return Shown{Args: p.Args, LogFormat: p.LogFormat} }

// Server are the settings of the server a run or graph started on the
// Temporal engine keeps for its steps and the commands it names; the local
// engine has no use for them.
type Server struct {
	// WorkerQueue is the queue of the worker the run's steps are pinned to
	// (run --worker-queue); "" for any.
	WorkerQueue string
	// Heartbeat is how long a step may go without a sign of life (0: the
	// engine's default).
	Heartbeat time.Duration
	// Flags are the command-line flags naming the server, for the commands
	// the run names.
	Flags string
}

// Outcome is how what a command followed stood when it stopped following;
// the caller maps it to its exit code.
type Outcome struct {
	// Status is the run's: escalated when it (or every running task of the
	// graph followed) waits for a person; interrupted also when following was
	// interrupted here, the run going on on the workers.
	Status state.Status
	// Graph is how the graph followed ended; nil when none ended.
	Graph *GraphResult
	// Chosen says the run ended as the person chose (resume --accept or
	// --abort): no failure of the command, aborted or not.
	Chosen bool
	// Refused says a worker refused the commands the run names: a
	// configuration to fix, which the run's reason says, not the loop's
	// verdict.
	Refused bool
}

// Ended reports whether the run followed ended: it does not wait again, and
// following it was not interrupted.
func (o Outcome) Ended() bool {
	return o.Status != state.StatusEscalated && o.Status != state.StatusInterrupted
}

// ResumeOptions are how a run resumes.
type ResumeOptions struct {
	// Server is where the run's graph goes on, when it does (Temporal).
	Server
	// Heartbeat is the run's heartbeat timeout given now; 0: it keeps its own.
	Heartbeat     time.Duration
	Guidance      string
	ADR           bool // record the guidance as an architecture decision
	Accept, Abort bool // end the escalated run: completed, or aborted
	// Reopen goes on with a run that succeeded, with Guidance as new
	// evidence (its pull request's failing check, a reviewer's words): a
	// new segment, its spend and limits those of the run.
	Reopen bool
	// From is the commit the run goes on from when that is not where it
	// stopped nor its work tree as it is: a merge agentloop made on an
	// issue's branch, a checkpoint of the run ([issueStates.handOver]) that
	// its continuation on a fleet's worker starts from, rollbacks never
	// going back before it. "": where it stopped.
	From    string
	UndoCut bool // put the work tree back where a cut attempt started ([ResumeTree])
	// Configure is the run's configuration: the flags it recorded, those
	// given now on top; GraphConfigure its graph's, when the graph goes on
	// (only --config and the server's flags given now on top).
	Configure, GraphConfigure plan.Configure
	Verbose, JSON             bool
}

// FollowOptions are how `agentloop follow` rebuilds a run's plan for its
// notifications.
type FollowOptions struct {
	// Configure reads the configuration of a run's work tree with the flags
	// it recorded (as resume does): where its notifications go.
	Configure plan.Configure
	Verbose   bool
}

// Budgets are the person's budgets: the caps the runs share, and where
// their ledger is.
type Budgets = config.Budgets

// Book is the spend ledger as `agentloop spend` shows it.
type Book struct {
	ledger.Report
	// Where names the ledger for a person.
	Where string
	// NotKept says why the ledger is not kept; "" when it is.
	NotKept string
}

// LedgerOff is what Book.NotKept says when the person turned the ledger off.
const LedgerOff = "(not kept: budgets: {ledger: off} in your configuration; remove it to keep the ledger)"
