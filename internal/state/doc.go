// Package state owns the record of a run and its store on disk. The record is
// the vocabulary every layer above reads and writes: the state document
// ([State]) with its iteration [Record]s, [Handoff]s and [Spend]; the typed
// [Event]s of events.jsonl; a [Decision] and its [Action]; the [Spec] a run is
// asked to run and the [Decider] that judges it. The store keeps runs under a
// root directory (default [DefaultRoot]):
//
//	state/NAME.json            the run's [State], written atomically
//	state/NAME.lock            who owns the run now (pid, host, start time), flocked
//	runs/NAME/RUNID/           events.jsonl and iter-NNN/ artifacts
//	runs/NAME/engine           the engine holding NAME's runs, when not the local one ([Store.MarkEngine])
//
// Directories are created 0700 and files 0600: prompts and logs can hold secrets.
// A state file of an older schema version is upgraded on load (see migrate.go);
// one written by a newer agentloop is refused and left alone. An unparseable one
// is moved aside, never deleted; a lock left by a dead process is recovered, one
// held by a live process refuses a second loop.
package state
