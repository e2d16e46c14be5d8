// Package cli wires agentloop's commands (cobra) to the packages that do the work.
// It owns flags, the mapping of errors to exit codes, signal handling and what
// each command prints; the behaviour lives in the domain packages.
package cli
