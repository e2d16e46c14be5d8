//go:build !linux

package proc

import "os/exec"

// cgroup is a run's cgroup; only Linux has them.
type cgroup struct{}

func newCgroup(string, string) *cgroup { return nil }
func (g *Groups) cgroupRoot() string   { return "" }
func (c *cgroup) attach(*exec.Cmd)     {}
func (c *cgroup) path() string         { return "" }
func (c *cgroup) end(int) int          { return 0 }
func killCgroup(string, bool, int) int { return 0 }
func killCgroupsOf(int)                {}
func cgroupsOf(string, int) []string   { return nil }
func cgroupBase() string               { return "" }
func sweepStrays() int                 { return 0 }
