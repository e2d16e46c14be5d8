package main

import (
	"fmt"
	"os"
)

// main says what the benchmark needs: Unix process accounting and signals
// (getrusage, kill), which Windows does not give.
func main() {
	fmt.Fprintln(os.Stderr, "bench/handoff measures with Unix process accounting and signals: run it on Linux or macOS")
	os.Exit(2)
}
