//go:build race

package redact

// raceOn: the race detector instruments the test binary (its allocations are
// not the build's).
const raceOn = true
