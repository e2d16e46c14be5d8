// Command agentloop runs AI coding agents in bounded, evidence-driven iteration
// loops. See README.md.
package main

import (
	"os"

	"github.com/agentloop/agentloop/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Std()))
}
