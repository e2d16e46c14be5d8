// Package report renders what people look at after (or during) a run: the run
// report as Markdown, JSON or one self-contained HTML page with inline SVG
// charts, the body of the pull request that carries a run's work (a receipt
// written from the run's records, [PRBody]), and the `agentloop status` table.
// It reads a run's persisted [state.State], its events, its escalation report
// and what its attempts' folders keep; it never changes them.
//
// Unknown figures stay unknown: a token count or cost the agent CLI did not report
// is shown as "unknown", never as 0.
package report
