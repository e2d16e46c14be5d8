// Package loop owns the iteration loop of one task: a deterministic state machine
// that asks its [Env] for every piece of work (agent, gates, reviewer, saving state,
// recording events) and obeys a pure [state.Decider] on whether to go on, stop
// with success, ask a human or give up. The loop judges nothing itself: before
// each iteration it hands the decider one budget status ([state.BudgetStatus])
// and asks whether the iteration may start (Preflight); after it the decider
// says what comes next (Decide); the limits live in the [state.Spec].
//
// [Run] does no I/O, reads no clock, draws no random numbers and starts no
// goroutines, so the same code runs in the local engine and as a durable workflow.
// Time comes in through [state.StepResult]; cancellation through the context.
//
// What happens is told through [Env.Emit] as typed [state.Event]s, plain data
// with one JSON encoding: the events.jsonl schema, versioned by
// [state.EventSchema] and documented in docs/events.md. The run's record (its
// state, records, events, decisions and hand-offs) is package state's
// vocabulary; this package holds the machine, its [Env] and its ports. What the
// decider concluded about an iteration (its decision document and feedback) is
// handed to [Env.Keep], not carried in an event.
//
// The ports ([AgentRunner], [GateRunner], [Reviewer], [Prompter]) are what an
// Env that runs a step calls to run the agent, the gates and the reviewer and
// to compose the prompt: the plan package builds them, with the settings they
// obey, as one run's [Parts], and an engine is handed them.
//
// When a run stops and waits for a person, what it asks is decided here too,
// once for both engines, from what the loop recorded: [Stopped] (its agent's
// setup, or its budgets), built by [SetupNeeds] and [BudgetNeeds].
package loop
