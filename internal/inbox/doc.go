// Package inbox renders what waits for a person — the runs and graph tasks
// whose "needs you" record ([decision.NeedsYou]) is open, each a
// [decision.Waiting] — for people ([Write]) and for programs ([WriteJSON]):
// what each asks, the evidence in short, how long it has waited and the exact
// command of each answer.
//
// The records themselves are made where their cause is known, by rules both
// engines call: an escalation's by its report
// ([decision.EscalationReport.NeedsYou]), a run its budgets or its agent's
// setup stopped by loop.Stopped, a graph's task whose branch could not be
// merged back by graph.Unmerged; which record a run's events leave open is
// state.NeedsYouNow. Where they are found (a state folder's runs and graphs,
// a Temporal namespace) is the application's.
package inbox
