// Package decision holds the documents a decision produces, as plain data: the
// decision document ([Document]: each iteration's decision.yaml and
// the output of `agentloop decide`), the escalation report
// ([EscalationReport]: escalation.md and escalation.yaml), and the [Trigger] both
// name. It owns the names of the triggers (the Trigger* constants), which are
// also the escalation classes and the reviewer's tags that raise them: the
// decision engine, the reviewer and the rest use these names.
//
// The decide package builds these documents, the loop carries them (in
// state.Decision and state.Escalation) without reading them, and the engine writes
// them. They live in this leaf package, not in decide, because the loop cannot
// import decide (decide imports the loop); and not in the loop, which has no use
// for their contents. They are structs of strings, numbers and slices with no
// behaviour beyond rendering, so they cross a durable workflow's history as they
// are.
package decision
