// Package loop owns the iteration loop of one task: a deterministic state machine
// that asks its [Env] for every piece of work (agent, gates, reviewer, saving state,
// recording events) and decides, through a pure [Decider], whether to go on, stop
// with success, ask a human or give up.
//
// [Run] does no I/O, reads no clock, draws no random numbers and starts no
// goroutines, so the same code runs in the local engine and as a durable workflow.
// Time comes in through [StepResult]; cancellation through the context.
package loop
