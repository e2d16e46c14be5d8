//go:build !windows

package testenv

// underWine is false: Wine runs Windows programs.
func underWine() bool { return false }
