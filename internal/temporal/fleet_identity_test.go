//go:build temporal

package temporal_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTwoRepositoriesOneNamespace: two clones run the procedure build at
// once in one namespace, on one worker: each run is its own workflow (its ID
// carries its repository's identity) and works in its own clone; a second
// run of build in a clone whose run is going on is refused, naming where the
// running one was started; status in each clone shows its own run.
func TestTwoRepositoriesOneNamespace(t *testing.T) {
	f := newFleet(t)
	clones := f.repo("one", "two")
	release := filepath.Join(f.dir, "release")
	agent := func(who string) string {
		return "sh -c 'echo " + who + " > who.txt; while [ ! -f " + release + " ]; do sleep 0.1; done'"
	}
	f.start(clones[0], "worker")
	first := f.start(clones[0], "run", "--engine", "temporal", "--agent-cmd", agent("one"), "--max-iterations", "1")
	f.waitFile(filepath.Join(clones[0], "who.txt"))
	second := f.start(clones[1], "run", "--engine", "temporal", "--agent-cmd", agent("two"), "--max-iterations", "1")
	f.waitFile(filepath.Join(clones[1], "who.txt"))

	code, out := f.run(clones[0], "run", "--engine", "temporal", "--agent-cmd", agent("again"), "--max-iterations", "1")
	if code != 1 || !strings.Contains(out, "run build: the run is already running on Temporal") || !strings.Contains(out, "in "+clones[0]+",") {
		t.Errorf("a second run of build in clone one: exit %d, want 1 and the running one named with its work tree:\n%s", code, out)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, p := range []*proc{first, second} {
		if code := p.wait(t, 2*time.Minute); code != 0 {
			t.Errorf("run in clone %d exited %d:\n%s", i+1, code, p.out.String())
		}
	}
	for i, who := range []string{"one", "two"} {
		if got := strings.TrimSpace(f.read(filepath.Join(clones[i], "who.txt"))); got != who {
			t.Errorf("clone %s: who.txt = %q, want its own run's work", who, got)
		}
		code, out := f.run(clones[i], "status", "--engine", "temporal")
		if code != 0 || strings.Count(out, "build") != 1 || !strings.Contains(out, "completed") {
			t.Errorf("status in clone %s: exit %d, want its one run of build, completed:\n%s", who, code, out)
		}
	}
}
