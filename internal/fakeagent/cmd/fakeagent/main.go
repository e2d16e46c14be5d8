// Command fakeagent is the scriptable stand-in for an agent CLI used by
// agentloop's end-to-end tests and benchmarks; see package fakeagent.
package main

import (
	"os"

	"github.com/agentloop/agentloop/internal/fakeagent"
)

func main() { os.Exit(fakeagent.Main()) }
