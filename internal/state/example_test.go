package state_test

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agentloop/agentloop/internal/state"
)

func Example() {
	root, _ := os.MkdirTemp("", "state-example")
	defer os.RemoveAll(root)
	store := state.Store{Root: root}

	lock, err := store.Lock("fix-tests")
	if err != nil {
		fmt.Println(err) // a *state.LockedError when another loop owns the run
		return
	}
	defer lock.Release()

	st, err := store.Load("fix-tests")
	if errors.Is(err, state.ErrNotFound) {
		st = &state.State{Version: state.StateVersion, Name: "fix-tests", RunID: "r1",
			Status: state.StatusRunning, StartedAt: time.Now()}
	}
	st.Iteration++
	if err := store.Save(st); err != nil {
		fmt.Println(err)
	}
	again, _ := store.Load("fix-tests")
	fmt.Println(again.Name, again.Iteration)
	// Output: fix-tests 1
}
