package proc

import (
	"maps"
	"slices"
	"testing"
)

// The watch of a run's tree (macOS) keeps what left the run's group once it
// has seen it descend from the leader, after its parent ended and init adopted
// it; it forgets a pid that ended or was reused, and never takes another
// process for the run's.
func TestTreeSeen(t *testing.T) {
	t.Parallel()
	const leader = 100
	s := newTreeSeen(leader)
	// The leader (group 100) runs a shell in its group, which starts a
	// daemon that calls setsid (group 300) and a child of it.
	s.observe(map[int]procInfo{
		1:      {ppid: 0, pgid: 1, start: "1"},
		leader: {ppid: 50, pgid: leader, start: "10"},
		200:    {ppid: leader, pgid: leader, start: "20"},
		300:    {ppid: 200, pgid: 300, start: "30"},
		301:    {ppid: 300, pgid: 300, start: "31"},
		400:    {ppid: 1, pgid: 400, start: "40"}, // another program's
	})
	// The shell ended: init adopted the daemon. A pid the run had is now
	// another program's (a new start time).
	later := map[int]procInfo{
		1:      {ppid: 0, pgid: 1, start: "1"},
		leader: {ppid: 50, pgid: leader, start: "10"},
		300:    {ppid: 1, pgid: 300, start: "30"},
		301:    {ppid: 300, pgid: 300, start: "31"},
		302:    {ppid: 301, pgid: 300, start: "32"}, // born after: a descendant of one seen
		400:    {ppid: 1, pgid: 400, start: "40"},
	}
	s.observe(later)
	if got, want := sorted(s.left(later)), []int{300, 301, 302}; !slices.Equal(got, want) {
		t.Errorf("left = %v, want %v", got, want)
	}
	reused := map[int]procInfo{
		leader: {ppid: 50, pgid: leader, start: "10"},
		300:    {ppid: 1, pgid: 300, start: "99"}, // pid 300 reused
		301:    {ppid: 1, pgid: 301, start: "31", zombie: true},
		500:    {ppid: leader, pgid: leader, start: "50"}, // in the run's group: the caller ends it
	}
	s.observe(reused)
	if got := sorted(s.left(reused)); len(got) != 0 {
		t.Errorf("left = %v, want none (a reused pid, a zombie, the run's own group)", got)
	}
	if _, ok := s.known[300]; ok {
		t.Error("a reused pid is still taken for the run's")
	}
}

func sorted(m map[int]bool) []int { return slices.Sorted(maps.Keys(m)) }

// kern.procargs2's layout: argc, the executable, padding, the arguments,
// the environment.
func TestProcargsEnv(t *testing.T) {
	t.Parallel()
	b := []byte{2, 0, 0, 0}
	b = append(b, "/bin/sleep\x00\x00\x00\x00sleep\x00300\x00HOME=/Users/u\x00AGENTLOOP_PROC=12-ab,34-cd\x00\x00junk\x00"...)
	env := procargsEnv(b)
	if len(env) != 2 || string(env[0]) != "HOME=/Users/u" {
		t.Fatalf("procargsEnv = %q", env)
	}
	if !envMarked(env, func(m []byte) bool { return string(m) == "34-cd" }) {
		t.Error("the second marker of the list is not found")
	}
	if envMarked(env, func(m []byte) bool { return string(m) == "56-ef" }) {
		t.Error("a marker not in the list is found")
	}
	for _, short := range [][]byte{nil, {1, 0}, {1, 0, 0, 0, 'x'}} {
		if env := procargsEnv(short); env != nil {
			t.Errorf("procargsEnv(%q) = %q, want nothing", short, env)
		}
	}
}
