package decide_test

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/decide"
)

// The `agentloop decide` document: an iteration_check in, a decision out.
func ExampleEvaluate() {
	in := `iteration_check:
  task_id: "task-003"
  current_iteration: 2
  max_iterations: 3
  test_result: {status: fail, output: "FAIL src/auth/login.test.ts\nExpected: token to contain userId\nReceived: undefined"}
  review_result: {status: pending, feedback: ""}
`
	c, err := decide.ParseCheck([]byte(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := decide.Evaluate(c, decide.DefaultPolicy()).YAML()
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
	//     summary: '1 test failure(s): token missing userId (src/auth/login.test.ts)'
	//     actionable_items:
	//       - 'Test failed: token missing userId (src/auth/login.test.ts)'
	//     priority: high
}
