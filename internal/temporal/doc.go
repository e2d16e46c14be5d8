// Package temporal is the Temporal engine: the same loop ([loop.Run]) as the
// local engine, run as a Temporal workflow so that many task loops run on a
// fleet of workers and survive the loss of any worker or of the server.
//
// The workflow body is loop.Run, unchanged, over an environment whose steps
// (baseline, iteration, rollback) are activities with heartbeats; an escalation
// waits for a workflow Update carrying the human's guidance; Save is a no-op (the
// workflow's history is the state) and Emit keeps the events in the workflow,
// where the "state" query reads them with the state. Keep, the escalation and
// an architecture decision are written by an activity (keep.go) on the worker
// holding the run, where a local run writes them.
//
// Only a build with the tag temporal (go build -tags temporal ./cmd/agentloop)
// imports this package: the command's wiring of the engine is behind the tag
// (internal/cli/temporal_on.go, over the application of the engine, package
// app below this one), so the default binary does not carry the
// Temporal SDK, while the package itself builds and tests with every go test
// (its workflow tests use the SDK's test environment; the tests against a real
// server need the temporal CLI on the PATH, and those that run the agentloop
// command, fleet_test.go, the tag). A tag rather than a module of its
// own: the engine reuses the loop, the plan and the local engine's steps,
// which are internal packages of this module, and Go's internal rule forbids
// another module to import them; a tag keeps one module and one version of
// every package.
//
// What a worker needs: a clone of the repository (at the path the run names as
// its work tree, or the one the worker is given), the agent CLIs and the gate
// tools on its PATH, and the agentloop configuration of that clone. Each worker
// polls the shared task queue for workflows and first steps, and its own queue
// for the steps of the runs whose work trees it holds (route.go): a run's steps
// follow its work tree, and when its worker is gone for good, another worker
// rebuilds the work tree from the run's last checkpoint, pushed to the remote
// the workers' clones share.
//
// # What a worker runs
//
// A worker rebuilds each run's plan from its reference ([Rebuild]: the
// configuration of its clone with the run's recorded flags on top, a task's
// by the rule of [plan.ResumeTask]) and runs only the commands it trusts
// ([CommandTrust]): whoever can start a workflow in the namespace writes the
// run's input, --agent-cmd and --gate included. Both live here, beside
// [Steps], rather than in package app: they are what a worker accepts, and
// app is the command line's side of the engine (starting, following and
// reading runs). The command line only parses the flags ([RunFlags]) and
// hands them on. A worker marks the runs it holds in its clone's state
// folder as this engine's ([state.Store.MarkEngine]), so that a clean that
// does not ask the server leaves them.
//
// # Operating a fleet
//
// A worker runs at most [Steps.MaxAgents] steps at once, takes from the
// shared queue only a few more than that, besides those waiting for a push
// (the other runs wait on the server for any worker with a place, at no
// cost: [sharedSteps]), pushes its clones' checkpoints in turns that rest
// between them while steps are at work ([sharer]), and drains when
// stopped ([Worker.Stop]): the steps under way get its drain time to end,
// then are handed back to the server, which runs them again elsewhere. The
// failures of the infrastructure (a lost worker, a missed heartbeat, a timed
// out attempt) are retried with backoff for as long as it takes, the
// activities' own failures are not (retry.go). A run or graph that ended is
// read from its history, replayed here, with no worker alive (ended.go); a
// run waiting for a person says so in its workflow's memo, which the inbox
// reads from the server's list, and in the search attribute
// [SearchWaiting] when its namespace has it (waiting.go).
//
// # Shared spend
//
// The caps of budgets: hold on Temporal as they do locally: the runs of a
// namespace share one ledger workflow ([Ledger], ledger.go), which holds the
// local ledger's book. A run started from a configuration with budgets:
// reserves each iteration through a worker, against the caps of that
// worker's configuration; a soft limit parks the run in its workflow (no
// step, no worker slot) until `agentloop budget approve --engine temporal`,
// a hard limit ends it as a budget abort, and the iteration's step settles
// what it spent. A worker whose configuration has caps refuses an iteration
// reserved nowhere (a run started without them): caps are never ignored.
// An account at its usage limit (a run's agent met it and told the ledger)
// routes every run on it as locally ([ledger.Book.Route]): onto its first
// fallback agent whose account is free, back after the reset, or, with none,
// waiting in its workflow until the reset.
//
// # Task graphs
//
// A task graph (run --tasks) is one parent workflow ([Graph], ID
// agentloop-graph-NAME@REPO, REPO the repository's identity, [RepoID]) and
// one child workflow per task: the same run workflow as a single run, ID
// agentloop-NAME-TASK@REPO, so status, report and resume --guidance reach a
// task's loop by its run name as they do locally, and two repositories run
// graphs of the same name side by side. A graph started before graphs
// carried their repository (no @REPO) is still read and resumed
// ([QueryGraph], [LastGraph]).
// The parent holds the schedule ([tasks.Schedule]: dependency order, up to
// --parallel at once), asks the decision engine whether the graph's global
// budget is spent before each task starts, and caps each task's cost and
// token limits by what is left; what the running tasks spent so far counts,
// each task's run signalling it to the parent after every step
// ([SignalSpend]). As locally, a running task is not stopped when the budget
// runs out: its own limits were capped when it started. A task's worktree
// and branch, the commit of its work and the merge-back of the done tasks
// (with the ticking of a Markdown plan and the removal of the merged
// worktrees) are activities
// running the local graph's code on a worker; a merge conflict makes that
// task escalated, as locally. Unlike the local engine, a task that escalates
// keeps its child workflow waiting for the guidance update: the tasks after
// it wait with it, and the graph goes on once it is answered.
//
// A graph's tasks run on a fleet, each where its worktree is. A task's
// worktree and branch are made by whichever worker takes the worktree
// activity (or the worker its runs are pinned to, run --worker-queue), in
// that worker's clone: the graph's repository and state folder are mapped
// onto the clone a worker is given (worker --work-tree, [RunRef.On]), as a
// single run's work tree is. The task's run starts on that worker's queue and
// its steps follow its work tree (route.go); a worker taking a task's run
// over from one gone for good makes the worktree in its own clone and
// restores it from the run's last checkpoint on the shared remote. The task's
// work is committed by the worker holding its work tree at the end of its
// run (that worker gone, by another, which rebuilds the work tree from the
// run's last checkpoint), which pushes the branch to the shared remote
// (worker --checkpoint-remote). The merge-back runs on the graph's queue (run
// --merge-queue, else --worker-queue, else any worker): the worker holding the
// repository the graph was started in, which fetches each branch from the
// shared remote when its clone does not have the commit the task's work was
// left at, and deletes it there once merged. A branch it cannot get (no
// shared remote) is left unmerged with a warning saying so, and a worker
// holding another clone merges nothing. A merged task's worktree and branch on
// another worker are removed by that worker (the branch only at the commit
// that was merged); what it cannot remove is a warning of the graph. A task's
// branch starts from the commit the graph was started at (its repository's
// HEAD then), which a clone that lacks it fetches from the shared remote. A
// graph started by an earlier build keeps that build's course (fleetChange in
// graph_workflow.go): without the version marker, every worktree and commit
// on the graph's queue.
//
// Cancelling the graph's workflow cancels its tasks' run workflows, which
// end interrupted once their steps stopped on the workers (the agents
// killed, the worktrees kept); nothing is merged back. A task whose run had
// ended by then still has its work committed on its branch (bounded in time,
// graph_workflow.go's commitChange), for the next workflow to merge. A new workflow of the
// graph resumes where the last one left it ([LastGraph], [GraphInput.Prior]):
// the done tasks are not run again, the merged ones not merged again, and the
// others' runs continue from their run workflows' last states; a task whose
// run is over is merged from the commit the last workflow left its branch at
// on whichever worker, fetched from the shared remote ([Committed]).
package temporal
