//go:build !linux && !darwin

package proc

// BecomeSubreaper reports false: only Linux can adopt orphaned descendants.
func BecomeSubreaper() bool { return false }

// sweep does nothing here: without /proc, what leaves the process group of an
// agent or gate is not found (docs/processes.md says so).
func sweep(string, bool) int { return 0 }

// SweepOrphansOf does nothing here (no /proc): only the process groups a lock
// names are ended.
func SweepOrphansOf(int) int { return 0 }

// EndLeftovers does nothing here (no /proc, no cgroups): a dead agentloop's
// leftovers are not found.
func EndLeftovers() int { return 0 }
