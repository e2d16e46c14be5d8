// Package decision holds the documents a decision produces, as plain data: the
// decision document ([Document]: each iteration's decision.yaml and
// the output of `agentloop decide`), the escalation report
// ([EscalationReport]: escalation.md and escalation.yaml), and the [Trigger] both
// name. It owns the names of the triggers (the Trigger* constants), which are
// also the escalation classes ([EscalationClasses]) and the reviewer's tags
// that raise them: the decision engine, the reviewer and the rest use these
// names. What a run asks of a person is here too: its record ([NeedsYou]) and,
// as an inbox lists it, the record waiting since when and where ([Waiting]).
//
// The decide package builds these documents, the loop carries them (in
// state.Decision and state.Escalation) without reading them, and the engine
// writes them. They live in this leaf of the house, not in decide, so that
// every layer may name them, the run's record (package state) among them.
// They are structs of strings, numbers and slices with no behaviour beyond
// rendering, so they cross a durable workflow's history as they are.
package decision
