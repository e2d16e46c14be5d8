// Package app is the application on the Temporal engine, for the command
// line: what [session] is to the local engine. It starts a run or a task
// graph as workflows on the server and follows them until they end or wait
// for a person (showing their events, sending their notifications), resumes a
// run by the rules both engines follow ([session.TaskRule]), and reads the
// runs and graphs of the server for status, report and the inbox; it stops
// and guides a running run. It reports how what it followed stands as a
// value ([Outcome]) and the person's mistakes as [session.UsageError];
// mapping them to exit codes, and the flags to its options, is the caller's
// (internal/cli, which chooses it as the [session.Engine] in a build with the tag temporal). What a worker runs (how it
// rebuilds a run's plan, which commands of a run's input it trusts) is the
// worker's, in package temporal ([temporal.Rebuild]), not this one's.
package app
