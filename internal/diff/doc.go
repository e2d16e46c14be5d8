// Package diff owns what agentloop reads out of a unified diff: the size of a
// change, a normalized hash that recognizes the same change twice, and the facts
// the decision engine escalates on — test tampering (test files changed or
// deleted, skips added, assertions removed, golden files rewritten), protected
// paths, files outside the task's scope, new dependencies, exported Go API changes
// and secrets. It is pure: text in, [evidence.DiffFacts] out.
package diff
