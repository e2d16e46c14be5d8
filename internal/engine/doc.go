// Package engine is the local engine: the [loop.Env] that runs a loop on this
// machine. It composes each prompt, runs the agent and the gates as processes,
// asks the reviewer, snapshots the work tree, writes every artifact of an
// iteration under the run folder, saves the state and records events. It depends
// on small interfaces (agent runner, gate runner, reviewer, workspace, store,
// events, clock) so each piece can be replaced in tests.
//
// It also holds the adapters behind those interfaces that any engine reuses:
// [PresetAgents] (the agent and its fallbacks), [ReviewerAgent], [ProcGates]
// and [PromptComposer]. The plan package builds them from a resolved plan.
package engine
