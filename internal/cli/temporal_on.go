//go:build temporal

package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/inbox"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/metrics"
	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/ui"
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

// dialTemporal connects to the server o resolves to; one that cannot be
// reached is an error naming its address and how it was reached.
func dialTemporal(ctx context.Context, d Deps, o engineOptions, lo loopOptions) (client.Client, temporal.Server, error) {
	return dialMetered(ctx, d, o, lo, nil)
}

// dialMetered is [dialTemporal] with the client's SDK metrics given to
// metrics (nil for none).
func dialMetered(ctx context.Context, d Deps, o engineOptions, lo loopOptions, metrics client.MetricsHandler) (client.Client, temporal.Server, error) {
	r, err := o.resolved(d)
	if err != nil {
		return nil, temporal.Server{}, err
	}
	s, err := r.server(d).Resolve()
	if err != nil {
		return nil, temporal.Server{}, &ExitError{Code: ExitUsage, Err: err}
	}
	s.Metrics = metrics
	c, err := s.Dial(ctx, newLogger(d, lo))
	return c, s.Server, err
}

// runTemporal is `agentloop run --engine temporal`: the run's workflow starts
// on the server and this process follows it until it ends or asks a human.
func runTemporal(ctx context.Context, o runOptions, d Deps, p *plan.Plan) error {
	c, s, err := dialTemporal(ctx, d, o.engine, o.loopOptions)
	if err != nil {
		return err
	}
	defer c.Close()
	in, err := temporal.NewInput(p, temporal.NewState(p, d.Now()), o.workerQueue)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	eng, err := o.engine.resolved(d)
	if err != nil {
		return err
	}
	in.HeartbeatTimeout, in.ServerFlags = eng.heartbeat, o.serverFlags()
	if in.Repo, err = temporal.RepoID(p.StateDir, p.WorkDir); err != nil {
		return err
	}
	if err := temporal.Start(ctx, c, s, in, d.Now()); err != nil {
		return err
	}
	screen := newScreen(d, o.loopOptions, p)
	key := temporal.Scoped(p.Name, in.Repo)
	screen.Linef("Run %s (%s) started on Temporal at %s, workflow %s", p.Name, in.Run.RunID, s.Address, temporal.WorkflowID(key))
	w, done, err := temporalWatch(ctx, d, o.loopOptions, p, in.Run.RunID, screen)
	if err != nil {
		return err
	}
	defer done()
	return followTemporal(ctx, c, screen, key, 0, w)
}

// serverFlags are the flags given on the command line that reach the Temporal
// server, for the commands a run names for later ([temporal.RunInput.ServerFlags]).
func (o *loopOptions) serverFlags() string {
	var flags []string
	for _, g := range o.given {
		if slices.Contains(connFlagNames, g.name) || slices.Contains([]string{"temporal-address", "temporal-namespace", "temporal-task-queue", "config"}, g.name) {
			flags = append(flags, "--"+g.name+"="+g.values[0])
		}
	}
	return strings.Join(flags, " ")
}

// followTemporal shows a run's events from the from-th on until it ends or
// waits for a human, and maps how it stands to the exit code; key is the
// run's ([temporal.Scoped]). Interrupting it leaves the run going on the
// workers. w, when set, is given each event shown, and ended when the run
// ends or waits: the follower sends the run's notifications, each once.
func followTemporal(ctx context.Context, c client.Client, screen *ui.Printer, key string, from int, w *notify.Watch) error {
	name, _ := temporal.Unscoped(key)
	return poll(ctx, screen,
		func(ctx context.Context) (temporal.View, error) { return temporal.Query(ctx, c, key) },
		func(v temporal.View) (bool, error) {
			if !v.Waiting && v.State.Status.Ended() && w != nil {
				// The workflow records a stopped run's needs-you after its
				// end: its last events are read once it completed.
				v = completedView(ctx, c, key, v)
			}
			for _, ev := range v.Events[min(from, len(v.Events)):] {
				screen.Event(ev)
				w.Event(ev)
			}
			from = max(from, len(v.Events))
			if v.Waiting || v.State.Status.Ended() {
				w.End(nil)
				return true, temporalEpilogue(screen, name, v)
			}
			return false, nil
		},
		"The run goes on on the workers. Follow it with: agentloop status "+name+" --engine temporal")
}

// runEnded reports whether following a run (err, what [followTemporal]
// returned) saw it end: not waiting again, not interrupted, no error.
func runEnded(err error) bool {
	if err == nil {
		return true
	}
	ee, ok := errors.AsType[*ExitError](err)
	return ok && ee.Err == nil && ee.Code != ExitEscalated && ee.Code != ExitInterrupted
}

// poll asks query five times a second and hands each answer to show until
// show says it is done, with show's error as the result. While the server
// cannot be reached (an outage, a restart: [temporal.Unreachable]) it says so
// once and asks again with backoff, up to [pollBackoff] apart, for as long as
// it takes: what it follows goes on on the workers, and ends as it ends. Any
// other failing query is asked again for 30 s before its error is the result.
// Interrupting it says gone (what goes on without this process) and exits as
// interrupted.
func poll[V any](ctx context.Context, screen *ui.Printer, query func(context.Context) (V, error), show func(V) (bool, error), gone string) error {
	const every = 200 * time.Millisecond
	wait := every
	var failingSince time.Time
	lost := false // the server is unreachable, and this was said
	for {
		v, err := query(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
		case temporal.Unreachable(err):
			failingSince = time.Time{}
			if !lost {
				lost = true
				screen.Warnf("The Temporal server cannot be reached (%v). Still following: trying again until it answers (Ctrl-C stops following; the workers go on)", err)
			}
			wait = min(max(2*wait, time.Second), pollBackoff)
		case err != nil:
			wait = every
			if failingSince.IsZero() {
				failingSince = time.Now()
			} else if time.Since(failingSince) > 30*time.Second {
				return err
			}
		default:
			if lost {
				lost = false
				screen.Linef("The Temporal server answers again")
			}
			failingSince, wait = time.Time{}, every
			if done, err := show(v); done {
				return err
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			screen.Linef("%s", gone)
			return &ExitError{Code: ExitInterrupted}
		case <-t.C:
		}
	}
}

// pollBackoff is the longest [poll] waits between two tries while the server
// cannot be reached: how soon after an outage it follows again.
const pollBackoff = 5 * time.Second

func temporalEpilogue(screen *ui.Printer, name string, v temporal.View) error {
	switch v.State.Status {
	case loop.StatusEscalated:
		screen.Linef("The loop needs you: agentloop report %s --engine temporal", name)
		screen.Linef("Then: agentloop resume %s --guidance \"...\" --engine temporal", name)
	case loop.StatusAborted, loop.StatusInterrupted:
		screen.Linef("To continue it: agentloop resume %s --engine temporal", name)
	}
	if code := statusExit(v.State.Status); code != ExitOK {
		return &ExitError{Code: code}
	}
	return nil
}

// resumeTemporal is `agentloop resume NAME --engine temporal`: a run waiting
// for guidance gets it as the workflow's update; a run that ended aborted or
// interrupted starts again from its last state.
func resumeTemporal(ctx context.Context, o resumeOptions, d Deps, name, guidance string) error {
	c, s, err := dialTemporal(ctx, d, o.engine, o.loopOptions)
	if err != nil {
		return err
	}
	defer c.Close()
	v, key, err := temporal.Find(ctx, c, name, repoOf(d))
	if err != nil {
		return err
	}
	// A graph's task's run and its graph carry the same repository identity.
	_, repo := temporal.Unscoped(key)
	st := v.State
	var member *graph.Member
	if t := v.Task; t != nil && !v.Waiting {
		m := t.Member()
		member = &m
		// The graph's rule first: a task it holds for its merge is resumed
		// as it says, or not at all.
		if gv, err := temporal.QueryGraph(ctx, c, v.Graph, repo); err == nil {
			if err := graph.Hold(&st, gv.Outcomes[t.Task.ID], graphCommands(d, gv, o.engineFlags()), guidance != ""); err != nil {
				if errors.Is(err, graph.ErrGuidanceNeeded) {
					return &ExitError{Code: ExitUsage, Err: err}
				}
				return err
			}
		}
	}
	switch {
	case o.accept || o.abort:
		if !v.Waiting {
			return session.NotEscalated(name, st.Status)
		}
		if err := temporal.Guide(ctx, c, key, temporal.Guidance{Accept: o.accept, Abort: o.abort}); err != nil {
			return err
		}
		screen := newScreen(d, o.loopOptions, &plan.Plan{})
		err := followTemporal(ctx, c, screen, key, len(v.Events), nil)
		if v.Graph != "" && runEnded(err) {
			return followGraph(ctx, c, d, screen, v.Graph, repo, o.engineFlags())
		}
		// The run ends as you chose, which is no failure of this command.
		if code := ExitCode(err); code == ExitAborted || code == ExitOK {
			return nil
		}
		return err
	case v.Waiting && guidance == "":
		return usageError("run %s is waiting for your answer to its escalation (%s): read it with 'agentloop report %s --engine temporal', then resume with --guidance \"...\"", name, st.Reason, name)
	case v.Waiting:
		if err := temporal.Guide(ctx, c, key, temporal.Guidance{Text: guidance, Architecture: o.adr}); err != nil {
			return err
		}
		screen := newScreen(d, o.loopOptions, &plan.Plan{})
		screen.Linef("Guidance sent to run %s; the iteration counter starts again (spend so far is kept)", name)
		err := followTemporal(ctx, c, screen, key, len(v.Events), nil)
		if v.Graph == "" || !runEnded(err) {
			return err
		}
		// The task's graph goes on by itself: follow it as run --tasks does,
		// until it ends or waits again.
		return followGraph(ctx, c, d, screen, v.Graph, repo, o.engineFlags())
	case !st.Status.Ended():
		return fmt.Errorf("run %s is running on Temporal; follow it with 'agentloop status %s --engine temporal'", name, name)
	case st.Status == loop.StatusSucceeded || st.Status == loop.StatusCompleted:
		return fmt.Errorf("run %s already %s (%s); start a new one with 'agentloop run %s --engine temporal'", name, st.Status, st.Reason, st.Procedure)
	}
	wd, err := d.Getwd()
	if err != nil {
		return err
	}
	p, err := session.ResumePlan(&st, member, configure(d, o.loopOptions), wd, d.Getenv, o.verbose)
	if err != nil {
		return err
	}
	lo, err := o.onRecorded(p.Args)
	if err != nil {
		return err
	}
	if guidance != "" {
		loop.ApplyGuidance(&st, loop.Guidance{Text: guidance, Architecture: o.adr})
	}
	st.Args, st.WorkDir = p.Args, p.WorkDir
	if v.Task != nil {
		if gv, err := temporal.QueryGraph(ctx, c, v.Graph, repo); err == nil && gv.Ended {
			// Its graph ended: the task's run continues in its graph, resumed
			// as run --tasks again resumes it, which commits and merges the
			// task's work by the graph's rules and runs the tasks after it.
			st.Status = loop.StatusRunning
			screen := newScreen(d, lo, p)
			return continueGraphTemporal(ctx, o, d, c, screen, v.Task, repo, &st)
		}
	}
	in, err := temporal.NewInput(p, &st, "")
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	in.Run.Task = v.Task // a graph's task: its worker rebuilds the task's plan
	// The run keeps its heartbeat timeout unless the flag gives one now.
	in.HeartbeatTimeout = cmp.Or(o.engine.heartbeat, v.HeartbeatTimeout)
	in.ServerFlags = o.serverFlags()
	in.Repo = repo
	if err := temporal.Start(ctx, c, s, in, d.Now()); err != nil {
		return err
	}
	screen := newScreen(d, lo, p)
	screen.Linef("Run %s continues on Temporal from iteration %d", name, st.TotalIterations+1)
	w, done, err := temporalWatch(ctx, d, lo, p, in.Run.RunID, screen)
	if err != nil {
		return err
	}
	defer done()
	err = followTemporal(ctx, c, screen, key, 0, w)
	if v.Task == nil || !runEnded(err) {
		return err
	}
	return followGraph(ctx, c, d, screen, v.Graph, repo, o.engineFlags())
}

// continueGraphTemporal resumes the graph of the task t in the repository
// repo, whose workflow ended, as 'run --tasks' again resumes it, the task's
// run continuing from st (answered).
func continueGraphTemporal(ctx context.Context, o resumeOptions, d Deps, c client.Client, screen *ui.Printer, t *temporal.GraphTask, repo string, st *loop.State) error {
	gv, err := temporal.QueryGraph(ctx, c, t.Graph, repo)
	if err != nil {
		return err
	}
	screen.Linef("Task %s goes on in its graph %s, as 'agentloop run --tasks %s %s' resumes it", t.Task.ID, t.Graph, graphCommands(d, gv, "").TaskFile, o.engineFlags())
	at := d
	at.Getwd = func() (string, error) { return t.Repo, nil }
	ro := runOptions{tasks: gv.File.Path, engine: o.engine, mergeQueue: gv.TaskQueue}
	ro.loopOptions = loopOptions{verbose: o.verbose, quiet: o.quiet, logFormat: o.logFormat, config: o.config}
	for _, g := range o.given {
		if g.name == "temporal-address" || g.name == "temporal-namespace" || g.name == "temporal-task-queue" || g.name == "config" || slices.Contains(connFlagNames, g.name) {
			ro.given = append(ro.given, g)
		}
	}
	return runTasksTemporalFrom(ctx, ro, at, map[string]*loop.State{st.Name: st})
}

// statusTemporal is `agentloop status --engine temporal`: every run the
// server knows (or the one named), read through the workflow's query.
func statusTemporal(ctx context.Context, o statusOptions, d Deps, args []string) error {
	c, s, err := dialTemporal(ctx, d, o.engine, loopOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	repo := repoOf(d)
	var states []*loop.State
	if len(args) == 0 {
		keys, err := temporal.Names(ctx, c)
		if err != nil {
			return err
		}
		for _, k := range keys {
			// This repository's runs, and those of no repository (a graph's
			// tasks): another repository's runs of the same names are not its.
			if _, r := temporal.Unscoped(k); r != "" && r != repo {
				continue
			}
			v, err := temporal.Query(ctx, c, k)
			if err != nil {
				return err
			}
			states = append(states, &v.State)
		}
	}
	for _, n := range args {
		v, _, err := temporal.Find(ctx, c, n, repo)
		if err != nil {
			return err
		}
		states = append(states, &v.State)
	}
	rows := report.StatusRows(states, d.Now())
	if o.json {
		return report.StatusJSON(d.Stdout, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(d.Stdout, "No runs on the Temporal server at %s yet. Start one with 'agentloop run --engine temporal'.\n", s.Address)
		return nil
	}
	return report.StatusTable(d.Stdout, rows, canColor(d, d.Stdout))
}

// inboxTemporal lists the runs of the namespace that wait for a person.
func inboxTemporal(ctx context.Context, o inboxOptions, d Deps) ([]inbox.Item, error) {
	c, _, err := dialTemporal(ctx, d, o.engine, loopOptions{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return temporal.Waiting(ctx, c)
}

// reportTemporal is `agentloop report NAME --engine temporal`.
func reportTemporal(ctx context.Context, o reportOptions, d Deps, name string) error {
	c, _, err := dialTemporal(ctx, d, o.engine, loopOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	v, _, err := temporal.Find(ctx, c, name, repoOf(d))
	if err != nil {
		r, gerr := graphReportTemporal(ctx, c, name, repoOf(d))
		switch {
		case gerr == nil:
			return writeReport(o, d, r)
		case !isNoGraph(gerr):
			return gerr
		}
		return err
	}
	return writeReport(o, d, report.Run{State: &v.State, Events: v.Events, Escalation: v.Escalation})
}

// repoOf is the identity of the repository of the working directory its
// runs on Temporal were started under ([temporal.RepoID]); "" when none was.
func repoOf(d Deps) string {
	store, err := openStore(d, "")
	if err != nil {
		return ""
	}
	return temporal.KnownRepoID(store.Root)
}

// workerOptions are the flags of `worker`.
type workerOptions struct {
	engine   engineOptions
	queue    string
	workTree string
	remote   string
	trust    commandTrust
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
	fs.StringArrayVar(&o.trust.allow, "allow-cmd", nil, "run this command line when a run's --agent-cmd or --gate names it (repeatable); by default a worker runs only the agents and gates of its clone's configuration")
	fs.BoolVar(&o.trust.trustInput, "trust-input-commands", false, "run every --agent-cmd and --gate command a run's workflow input names: whoever can start a workflow in the namespace can then run commands on this worker")
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
back (run --merge-queue) fetches it.

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
	m, err := serveMetrics(mctx, d, o.metricsAddr)
	if err != nil {
		return err
	}
	c, s, err := dialMetered(ctx, d, o.engine, o.log, m.SDK())
	if err != nil {
		return err
	}
	defer c.Close()
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
	if n := proc.EndLeftovers(); n > 0 {
		fmt.Fprintf(d.Stdout, "Ended %d processes left running by an agentloop process that died on this machine\n", n)
	}
	steps := &temporal.Steps{Plan: workerPlan(d, workTree, o.trust), Log: newLogger(d, o.log), Queue: queue, Remote: o.remote, WorkTree: workTree, MaxAgents: o.maxAgents, Metrics: m}
	w := temporal.NewWorker(ctx, c, s, steps, queue, o.drain)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the worker: %w", err)
	}
	queues := s.TaskQueue + " and " + queue
	fmt.Fprintf(d.Stdout, "Worker polling %s on %s (namespace %s), at most %d agents at once; Ctrl-C or SIGTERM drains it\n", queues, s.Address, s.Namespace, o.maxAgents)
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

// serveMetrics serves a worker's metrics at addr until ctx ends; nil when
// addr is "".
func serveMetrics(ctx context.Context, d Deps, addr string) (*temporal.Metrics, error) {
	if addr == "" {
		return nil, nil
	}
	reg := metrics.NewRegistry()
	at, err := metrics.Serve(ctx, addr, reg)
	if err != nil {
		return nil, fmt.Errorf("%w; give --metrics-addr a free HOST:PORT", err)
	}
	fmt.Fprintf(d.Stdout, "Metrics at http://%s/metrics\n", at)
	return temporal.NewMetrics(reg), nil
}

// workerPlan rebuilds a run's plan on a worker: its recorded flags over the
// configuration of its work tree on this machine (workTree, else the path the
// run was started at). A run whose flags name a command trust does not let
// this worker run is refused.
func workerPlan(d Deps, workTree string, trust commandTrust) func(context.Context, temporal.RunRef) (*plan.Plan, error) {
	return func(_ context.Context, r temporal.RunRef) (*plan.Plan, error) {
		var none loopOptions
		lo, err := none.onRecorded(r.Args)
		if err != nil {
			return nil, err
		}
		r = r.On(workTree)
		at := d
		at.Getwd = func() (string, error) { return r.WorkDir, nil }
		own := func() *plan.Plan {
			var p *plan.Plan
			if r.Task != nil {
				p, _ = workerTaskPlan(d, none, r)
			} else {
				p, _ = resolvePlan(at, none, r.Procedure)
			}
			return p
		}
		if err := trust.check(r.Name, lo, own); err != nil {
			return nil, err
		}
		if r.Task != nil {
			return workerTaskPlan(d, lo, r)
		}
		p, err := resolvePlan(at, lo, r.Procedure)
		if err != nil {
			return nil, err
		}
		p.Name, p.Args = r.Name, r.Args
		return p, nil
	}
}
