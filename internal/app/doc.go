// Package app is agentloop's application: a run's and a graph's lifecycle —
// run, resume (every rule of what it keeps), guide, stop, accept, abort,
// follow, clean, the inbox, status, report and spend — through one [Engine]
// interface, whichever engine runs the loops.
//
// A caller (the command line) chooses the engine once and calls it:
//
//	eng := app.NewLocal(shell, stateDir) // or, built with -tags temporal, app.NewFleet(dial, server, repo, heartbeat, shell)
//	defer eng.Close()
//	out, err := eng.Run(ctx, p, app.Server{})         // p: a resolved plan.Plan
//	out, err = eng.Resume(ctx, name, app.ResumeOptions{Guidance: "…", Configure: configure})
//
// [Shell] is what the caller gives: its process (stdout, stderr, clock, working
// directory, user), how a run of a plan is shown, logged and notified, and
// what the agent preflight reads of the machine. Each operation takes an
// options struct of this package, which the caller fills from its flags. A
// run or a graph followed returns an [Outcome] (its status, a graph's result,
// whether the person chose its end); a mistake the person must fix is a
// [UsageError]. What exit code an outcome or an error means is a rule of
// this package too ([ExitStatus], [IsSetup]). Confirmations (a
// guidance queued, a stop asked, a cap approved) are said on the shell's
// Stdout, a run's progress on its screen.
//
// [Local] runs each loop in this process as a [Session]: it takes the run's
// lock, loads or starts its state, assembles the local engine from the plan's
// parts ([plan.Plan.Parts], [engine.New]), runs the loop, saves, and tells the
// person what to do next;
// a task graph ([RunGraph]) runs each task as a session of its own in its own
// git worktree, keeps the graph's state file and global budget, and merges
// finished branches back (ticking a Markdown plan). [Fleet], in the files
// built with the tag temporal, starts runs and graphs as workflows on a
// Temporal server and follows them until they end or wait for a person
// (showing their events, sending their notifications), and reads the
// server's runs for status, report and the inbox. What a worker runs is the
// worker's, in package temporal ([temporal.Rebuild]), not this one's. The
// rules a person relies on at a resume exist once and both engines call them:
// [TaskRule], [ResumeTree], [Over].
//
// An issue of a tracker ([RunIssue], run --issue) is run through the same
// [Engine]: its task read from the issue (the words of people who cannot
// write marked as data), claimed on the tracker (labels, one progress comment
// kept up to date), run on a branch and worktree of its own, and ended there:
// a pull request from the run's receipt, or the escalation's question, which a
// writer answers with a /agentloop command in a comment ([IssueCommand]).
// Once its pull request is open, run --issue owns it: a red check, a
// writer's review or a conflict goes on with the run, a merge ends it.
// [Serve] takes a tracker's labelled issues as they come and runs each so
// ([ServeIssues], agentloop serve). On either engine: what the run reads
// and writes of its run's state goes through issueStates, the state folder's
// on the local engine, on a fleet the run's state through its workflow and
// the record in the clone's state folder.
//
// The commands that run no loop do their work here too, each a function
// that takes what the command line gave and writes what it prints: [Agents],
// [Doctor], [Decide], [Feedback], [Double], [DryRun], [WriteSpend],
// [PrepareDemo]; so does the process-level setup ([Helper], [AdoptChildren]).
// The command line is left its flags, the options it fills from them, and
// rendering (package report, ui, watch).
package app
