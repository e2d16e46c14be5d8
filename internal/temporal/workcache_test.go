package temporal

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/plan"
)

// TestWorkerKeepsBoundedWorkTrees: a worker keeps the engines of at most
// MaxWorkTrees runs, dropping the least recently used idle one, never one in a
// step; a dropped run's next step builds its engine afresh.
func TestWorkerKeepsBoundedWorkTrees(t *testing.T) {
	dir := t.TempDir()
	built := map[string]int{}
	s := &Steps{Log: testLogger(), Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
		built[r.RunID]++
		return &plan.Plan{Name: r.Name, WorkDir: dir, StateDir: filepath.Join(dir, ".agentloop"), Proc: config.Procedure{Name: "build"}}, nil
	}}
	step := func(id string) (fresh bool, done func()) {
		t.Helper()
		_, _, fresh, done, err := s.engine(t.Context(), RunRef{Name: "r" + id, RunID: id})
		if err != nil {
			t.Fatal(err)
		}
		return fresh, done
	}
	_, busy := step("busy") // in a step all along
	for i := range MaxWorkTrees + 10 {
		_, done := step(fmt.Sprint(i))
		done()
		if i == 100 {
			if fresh, done := step("0"); fresh {
				t.Fatal("run 0 rebuilt while kept")
			} else {
				done() // run 0 is now more recent than 1 to 100
			}
		}
	}
	if len(s.runs) != MaxWorkTrees {
		t.Errorf("%d engines kept, want %d", len(s.runs), MaxWorkTrees)
	}
	if _, ok := s.runs["busy"]; !ok {
		t.Error("the engine of a run in a step was dropped")
	}
	if _, ok := s.runs["0"]; !ok {
		t.Error("run 0, used recently, was dropped before older ones")
	}
	if _, ok := s.runs["1"]; ok {
		t.Error("run 1, the least recently used, was kept")
	}
	if fresh, done := step("1"); !fresh || built["1"] != 2 {
		t.Errorf("a dropped run's next step: fresh %v, plan built %d times; want a fresh engine, built twice", fresh, built["1"])
	} else {
		done()
	}
	busy()
}
