// Package gate owns the pure parsing and feedback layer of quality gates: it reads
// the saved or streaming output of a test runner, linter or compiler (go test -json
// and text, go build/vet, gotestsum, golangci-lint, JUnit XML, jest/vitest/mocha
// JSON, jest/vitest text, TAP, cargo, unittest/pytest text, eslint, ruff, tsc, mypy,
// SARIF, and a generic file:line fallback; [Formats] lists them, detect.go documents
// how "auto" picks one),
// turns it into normalized [evidence.Finding]s, judges a gate from its exit code,
// report and raw tail together, fingerprints the failures so that a stuck loop can
// be told from progress, and renders short prioritized feedback for the next
// iteration. It runs no processes: the caller runs the gate and hands over its
// output as an [io.Reader].
//
// It owns a finding's identity: [Key] (no line numbers, so moved code keeps its
// key), [Fingerprint] over a set of keys, and [Compare], the one comparison of
// failures between iterations (new, fixed, still failing, and for how long).
// The decision engine uses these; nothing else computes them.
//
// Every parser streams: memory stays bounded whatever the input, including a
// single line of a gigabyte (long lines are cut at [MaxLine] bytes, whole-document
// formats are read through a [MaxDocument] limit, and at most [MaxFindings]
// findings are kept).
package gate
