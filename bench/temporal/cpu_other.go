//go:build !unix

package main

import "time"

// selfCPU and childCPU are 0 here (no getrusage): the run reports wall time only.
func selfCPU() time.Duration  { return 0 }
func childCPU() time.Duration { return 0 }
