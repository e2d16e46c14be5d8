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
// vocabulary; this package holds only the machine and its [Env]. What the
// decider concluded about an iteration (its decision document and feedback) is
// handed to [Env.Keep], not carried in an event.
//
// The ports ([AgentRunner], [GateRunner], [Reviewer], [Prompter]) are what an
// Env that runs a step calls to run the agent, the gates and the reviewer and
// to compose the prompt: the plan package builds them, an engine is handed
// them.
package loop
