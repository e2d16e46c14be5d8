// Package demo owns agentloop's built-in demonstration: a small Go project with
// failing tests and a scripted agent that, like a real one, reads the feedback in
// its prompt and fixes one failure per iteration. `agentloop demo` runs the real
// loop on them with the real `go test` as the gate.
package demo
