//go:build !unix

package main

// cpuSeconds is 0 here (no getrusage): the benchmark reports wall time only.
func cpuSeconds() float64 { return 0 }
