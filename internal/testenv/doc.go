// Package testenv owns what tests need from the machine they run on: the
// programs (git, go, a browser, the Temporal dev server) that some tests drive,
// and a place to collect what such a process writes while the test reads it. A
// test that needs a missing program is skipped with the reason on a developer's
// machine, and fails when CI=true: a continuous-integration run must have every
// tool, so that a green run never hides tests that did not run.
package testenv
