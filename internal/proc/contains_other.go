//go:build !linux && !windows && !darwin

package proc

// Contains reports the process group only: without /proc and cgroups, what
// calls setsid escapes.
func (g *Groups) Contains() Containment { return Containment{Kind: ContainGroup} }
