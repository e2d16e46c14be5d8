// Package watch owns the live terminal view of `agentloop watch`: every run
// and graph task of a state folder (its status, iteration, phase, tokens and
// cost as the agent's CLI streams them, last decision, elapsed time) and what
// waits for a person, refreshed while it is open, with keys to move the
// selection, open a run's escalation (its question, options and
// escalation.md), answer it (guidance, accept, abort) and stop a run.
//
// The view reads through [Options.Look] and never changes a run itself: each
// answer is an agentloop command ([Action]) that [Options.Start] runs as a
// process of its own, so the view never waits on it and a resumed run goes on
// after the view is closed. The rows' cells are the report's
// ([report.WatchRow.Cells]), as the plain table shows them.
package watch
