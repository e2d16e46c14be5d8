package decide_test

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/decide"
)

// The `agentloop decide` document: an iteration_check in, a decision out.
func ExampleEngine_DecideCheck() {
	in := `iteration_check:
  task_id: "task-003"
  current_iteration: 2
  max_iterations: 3
  test_result: {status: fail, output: "--- FAIL: TestRound (0.00s)\n    round_test.go:9: Round(2.5) = 2, want 3\nFAIL"}
  review_result: {status: pending, feedback: ""}
`
	c, err := decide.ParseCheck([]byte(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := decide.New(decide.DefaultPolicy()).DecideCheck(c).YAML()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// decision:
	//   action: retry
	//   task_id: task-003
	//   iteration: 3
	//   feedback:
	//     summary: '1 failure to fix: TestRound'
	//     actionable_items:
	//       - 'test failed: TestRound: Round(2.5) = 2, want 3'
	//     priority: high
}
