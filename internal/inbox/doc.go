// Package inbox owns the "needs you" records ([decision.NeedsYou]) of the runs
// and graph tasks that wait for a person: what each asks, the evidence in
// short, and the exact command of each answer. An escalation's record is its
// report's ([decision.EscalationReport.NeedsYou]); this package builds the
// others — a run a budget stopped ([Budget]), a run whose agent cannot work
// until its setup is fixed ([Setup]), a graph's task whose branch could not be
// merged back ([Unmerged]) — and renders a list of them for people
// ([Write]). Where the records are found (a state folder's runs and graphs,
// a Temporal namespace) is the caller's: the builders are pure, so a durable
// workflow builds them too.
package inbox
