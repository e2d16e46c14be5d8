//go:build temporal

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/temporal"
)

// temporalBuilt says whether this build holds the Temporal engine.
const temporalBuilt = true

// server is where the Temporal engine's server is and how to connect to it,
// over the Temporal client configuration read from d's environment.
func (o engineOptions) server(d Deps) temporal.Server {
	c := o.conn
	lookup := func(k string) (string, bool) { v := d.Getenv(k); return v, v != "" }
	return temporal.Server{
		Address: o.address, Namespace: o.namespace, TaskQueue: o.taskQueue,
		Conn: temporal.Conn{
			ConfigFile: c.configFile, Profile: c.profile, TLS: c.tls, CACert: c.caCert,
			ClientCert: c.clientCert, ClientKey: c.clientKey, ServerName: c.serverName,
			Lookup: lookup, Environ: d.Environ,
		},
	}
}

// resolveServer is the Temporal server o resolves to, and how it is reached.
func resolveServer(d Deps, o engineOptions) (temporal.Resolved, error) {
	r, err := o.resolved(d)
	if err != nil {
		return temporal.Resolved{}, err
	}
	s, err := r.server(d).Resolve()
	if err != nil {
		return temporal.Resolved{}, &ExitError{Code: ExitUsage, Err: err}
	}
	return s, nil
}

// temporalEngine is the application on the Temporal server o resolves to
// ([app.Fleet]), connected when first needed, for the repository of the
// working directory. A server that cannot be reached is an error naming its
// address and how it was reached.
func temporalEngine(ctx context.Context, d Deps, o engineOptions, u engineUse) (app.Engine, error) {
	r, err := o.resolved(d)
	if err != nil {
		return nil, err
	}
	s, err := r.server(d).Resolve()
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	dial := func(ctx context.Context) (client.Client, error) { return s.Dial(ctx, newLogger(d, u.lo)) }
	return app.NewFleet(dial, s.Server, repoOf(d), r.heartbeat, shell(ctx, d, u)), nil
}

// repoOf is the identity of the repository of the working directory its
// runs on Temporal were started under ([temporal.RepoID]); "" when none was.
func repoOf(d Deps) string {
	dir, err := stateDir(d, "")
	if err != nil {
		return ""
	}
	return temporal.KnownRepoID(dir)
}

// workerOptions are the flags of `worker`.
type workerOptions struct {
	engine   engineOptions
	queue    string
	workTree string
	remote   string
	trust    temporal.CommandTrust
	log      loopOptions
	// maxAgents is how many steps run at once on the worker (0: one for
	// each core).
	maxAgents int
	// drain is how long the steps under way get to end once the worker is
	// told to stop.
	drain time.Duration
	// metricsAddr is where the worker serves its metrics ("" for nowhere).
	metricsAddr string
}

// AddFlags adds the flags of `worker` to fs.
func (o *workerOptions) AddFlags(fs *pflag.FlagSet) {
	o.engine.AddFlags(fs)
	o.engine.AddConfigFlag(fs)
	fs.StringVar(&o.queue, "queue", "", "this worker's own queue, where the steps of the runs whose work trees it holds come (run --worker-queue names it); default one of its own, from the host and process")
	fs.StringVar(&o.workTree, "work-tree", "", "run the steps in this clone of the runs' repository (default the path each run was started at)")
	fs.StringVar(&o.remote, "checkpoint-remote", "", "push each checkpoint (and a graph task's branch once its work is committed) to this git remote of the clone, shared by the workers, and fetch from it when taking over a run from a worker that is gone or merging a graph's tasks back")
	fs.StringArrayVar(&o.trust.Allow, "allow-cmd", nil, "run this command line when a run's --agent-cmd or --gate names it (repeatable); by default a worker runs only the agents and gates of its clone's configuration")
	fs.BoolVar(&o.trust.TrustInput, "trust-input-commands", false, "run every --agent-cmd and --gate command a run's workflow input names: whoever can start a workflow in the namespace can then run commands on this worker")
	fs.IntVar(&o.maxAgents, "max-agents", 0, "run at most this many agents (steps: an iteration, or a baseline's gates) at once on this worker; the others wait for a place (default: the number of cores)")
	fs.DurationVar(&o.drain, "drain-timeout", defaultDrain, "on SIGTERM or Ctrl-C, how long the steps under way get to end before they are stopped and handed back to the server for another worker (keep it under the time your supervisor gives the process after SIGTERM)")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve the worker's metrics (the Temporal SDK's and agentloop's: iterations, spend, agents running, runs waiting for a person) at http://HOST:PORT/metrics in the Prometheus text format")
	fs.BoolVarP(&o.log.verbose, "verbose", "v", false, "log every step")
}

// defaultDrain is how long a stopping worker waits for its steps by default:
// under the 30 s Kubernetes gives a pod after SIGTERM, with room for the
// steps handed back to reach the server.
const defaultDrain = 20 * time.Second

func newWorkerCmd(d Deps) *cobra.Command {
	var o workerOptions
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run a Temporal worker: the workflows and steps of runs started with --engine temporal",
		Long: `Run a Temporal worker until interrupted: it runs the loops of the runs started with
'agentloop run --engine temporal' and their steps (the agent, the gates and the
reviewer) in the runs' work trees on this machine. A worker needs a clone of the
repository (at the run's path, or given with --work-tree), the agent CLIs and the
gate tools. A run's steps stay on the worker that took its first one; with
--checkpoint-remote, another worker takes a run over when that one is gone,
rebuilding the work tree from the last checkpoint pushed there. A task of a task
graph runs in a worktree of this worker's clone when it takes the task; its
branch is pushed to the --checkpoint-remote, where the worker merging the graph
back (run --merge-queue) fetches it. Its git pushes to and fetches from an https
--checkpoint-remote of the forge's host with the forge's credential when it has
one (the GitHub App of its clone's configuration, else GH_TOKEN, GITHUB_TOKEN,
GH_ENTERPRISE_TOKEN), given through git's environment only; it says which at
its start.

Starting a workflow means running commands on workers: a worker runs only the
agents and gates of its clone's configuration and the command lines given with
--allow-cmd; a run whose --agent-cmd or --gate names another is refused, unless
the worker is started with --trust-input-commands.

At most --max-agents steps (default: the number of cores) run at once on a
worker, whichever queue they came from; a step beyond waits on the worker for a
place, telling the server it is alive.

On SIGTERM or Ctrl-C the worker drains: it takes no more steps, gives those under
way --drain-timeout to end, then stops their agents and hands them back to the
server, which runs each again on another worker from its iteration's start (no
iteration is counted for it). A second signal stops it at once.` + exitStatus(
			exitSuccess, exitLine{ExitFailure, "the server cannot be reached, or the worker failed"}, exitUsageLine),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorker(cmd.Context(), o, d) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runWorker is `agentloop worker`.
func runWorker(ctx context.Context, o workerOptions, d Deps) error {
	switch {
	case o.drain < 0:
		return usageError("--drain-timeout is %s: give how long the steps under way get to end (0 stops them at once)", o.drain)
	case o.maxAgents < 0:
		return usageError("--max-agents is %d: give how many agents may run at once on this worker (default: the number of cores)", o.maxAgents)
	case o.maxAgents == 0:
		o.maxAgents = runtime.NumCPU()
	}
	// The metrics are served while the worker drains too.
	mctx, stopMetrics := context.WithCancel(context.WithoutCancel(ctx))
	defer stopMetrics()
	m, err := app.ServeMetrics(mctx, d.Stdout, o.metricsAddr)
	if err != nil {
		return err
	}
	r, err := resolveServer(d, o.engine)
	if err != nil {
		return err
	}
	r.Metrics = m.SDK()
	c, err := r.Dial(ctx, newLogger(d, o.log))
	if err != nil {
		return err
	}
	defer c.Close()
	s := r.Server
	if m != nil {
		m.WatchWaiting(c, s.Namespace)
	}
	queue := o.queue
	if queue == "" {
		host, _ := os.Hostname()
		queue = fmt.Sprintf("%s-%s-%d", s.TaskQueue, host, os.Getpid())
	}
	workTree := o.workTree
	if workTree != "" {
		if workTree, err = filepath.Abs(workTree); err != nil {
			return err
		}
	}
	// What a predecessor killed on this machine left running (its agents
	// and gates, in its cgroups or carrying its marker) ends before this
	// worker takes steps: the retried attempts do not work beside them.
	if n := app.EndLeftovers(); n > 0 {
		fmt.Fprintf(d.Stdout, "Ended %d processes left running by an agentloop process that died on this machine\n", n)
	}
	ctx, said, err := workerGitAuth(ctx, d, o, workTree)
	if err != nil {
		return err
	}
	rebuild := temporal.Rebuild{WorkTree: workTree, Trust: o.trust, Read: runFlags, Configure: configure(d, loopOptions{}), Getenv: d.Getenv}
	steps := &temporal.Steps{Plan: rebuild.Plan, Log: newLogger(d, o.log), Queue: queue, Remote: o.remote, WorkTree: workTree, MaxAgents: o.maxAgents, Metrics: m}
	w := temporal.NewWorker(ctx, c, s, steps, queue, o.drain)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the worker: %w", err)
	}
	queues := s.TaskQueue + " and " + queue
	fmt.Fprintf(d.Stdout, "Worker polling %s on %s (namespace %s), at most %d agents at once; Ctrl-C or SIGTERM drains it\n", queues, s.Address, s.Namespace, o.maxAgents)
	if said != "" {
		fmt.Fprintf(d.Stdout, "Worker: %s\n", said)
	}
	<-ctx.Done()
	why := "interrupted"
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		why = c.Error()
	}
	fmt.Fprintf(d.Stdout, "Worker draining (%s): it takes no more steps; those under way have %s to end, then go back to the server for another worker (a second signal stops it now)\n", why, o.drain)
	w.Stop()
	fmt.Fprintln(d.Stdout, "Worker stopped")
	return nil
}

// workerGitAuth is ctx whose pushes and fetches of the --checkpoint-remote
// send the forge's credential when the worker has one
// ([app.WorkerGitAuth]): the GitHub App of the configuration of its clone
// (--work-tree, else the working folder), or GH_TOKEN and the like. The
// steps run under ctx ([temporal.NewWorker]). said names the credential.
func workerGitAuth(ctx context.Context, d Deps, o workerOptions, workTree string) (_ context.Context, said string, err error) {
	if o.remote == "" {
		return ctx, "", nil
	}
	dir := workTree
	if dir == "" {
		if dir, err = d.Getwd(); err != nil {
			return nil, "", err
		}
	}
	cfg, _, err := configure(d, loopOptions{})(dir, nil)
	if err != nil {
		return nil, "", err
	}
	return app.WorkerGitAuth(ctx, dir, o.remote, cfg.Issues.App, forgeOf(d))
}

// runFlags reads what a worker needs of a run's recorded flags
// ([temporal.RunFlags]): the commands they name, each with its flag, and -v.
func runFlags(recorded []string) (temporal.RunFlags, error) {
	var none loopOptions
	lo, err := none.onRecorded(recorded)
	if err != nil {
		return temporal.RunFlags{}, err
	}
	var cmds []temporal.InputCommand
	if lo.agentCmd != "" {
		cmds = append(cmds, temporal.InputCommand{Flag: "--agent-cmd", Line: lo.agentCmd})
	}
	for _, g := range lo.gates {
		cmds = append(cmds, temporal.InputCommand{Flag: "--gate", Line: g})
	}
	return temporal.RunFlags{Commands: cmds, Verbose: lo.verbose}, nil
}
