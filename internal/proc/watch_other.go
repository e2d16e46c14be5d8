//go:build !darwin

package proc

// treeWatch watches a run's process tree only on macOS, which has neither
// cgroups nor a subreaper (watch_darwin.go).
type treeWatch struct{}

func watchTree(int, string) *treeWatch { return nil }

func (*treeWatch) end() int { return 0 }
