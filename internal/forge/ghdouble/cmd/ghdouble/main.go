// Command ghdouble serves the GitHub double on 127.0.0.1 for the real gh
// CLI and for benchmarks; see package ghdouble.
package main

import (
	"os"

	"github.com/agentloop/agentloop/internal/forge/ghdouble"
)

func main() { os.Exit(ghdouble.Main()) }
