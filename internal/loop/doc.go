// Package loop owns the iteration loop of one task: a deterministic state machine
// that asks its [Env] for every piece of work (agent, gates, reviewer, saving state,
// recording events) and obeys a pure [Decider] on whether to go on, stop with
// success, ask a human or give up. The loop judges nothing itself: before each
// iteration it hands the decider one budget status ([BudgetStatus]) and asks
// whether the iteration may start ([Decider.Preflight]), after it the decider
// says what comes next ([Decider.Decide]); the limits live in [Spec.Limits].
//
// [Run] does no I/O, reads no clock, draws no random numbers and starts no
// goroutines, so the same code runs in the local engine and as a durable workflow.
// Time comes in through [StepResult]; cancellation through the context.
//
// What happens is told through [Env.Emit] as typed [Event]s, plain data with one
// JSON encoding: the events.jsonl schema, versioned by [EventSchema] and
// documented in docs/events.md. What the decider concluded about an iteration
// (its decision document and feedback) is handed to [Env.Keep], not carried in
// an event.
package loop
