// Package engine is the local engine: the [loop.Env] that runs a loop on this
// machine. It composes each prompt, runs the agent and the gates as processes,
// asks the reviewer, snapshots the work tree, writes every artifact of an
// iteration under the run folder, saves the state and records events. It depends
// on small interfaces (the loop's ports [loop.AgentRunner], [loop.GateRunner],
// [loop.Reviewer] and [loop.Prompter], and its own workspace, store, events,
// clock) so each piece can be replaced in tests. It is handed the ports'
// implementations, which the plan package builds from a resolved plan; [New]
// assembles it from a plan for both engines (the Temporal engine's activities
// run it too). The rules both engines keep at an answer live here too: when an
// answer is an architecture decision ([Architectural]) and its record
// ([WriteADR]).
package engine
