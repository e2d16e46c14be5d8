//go:build !unix

package gate

import "time"

// cpuTime is 0 here (no getrusage): the benchmarks report wall time only.
func cpuTime() time.Duration { return 0 }
