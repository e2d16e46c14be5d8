//go:build !unix

package main

import "time"

// childCPU is 0 here (no getrusage): the steps report wall time only.
func childCPU() time.Duration { return 0 }
