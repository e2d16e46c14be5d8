package decide

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCheck(t *testing.T) {
	t.Parallel()
	in := `iteration_check:
  task_id: "task-003"
  current_iteration: 2
  max_iterations: 3
  test_result: {status: fail, output: "FAIL x"}
  review_result: {status: pending, feedback: ""}
  history:
    - current_iteration: 1
      test_result: {status: fail}
`
	got, err := ParseCheck([]byte(in))
	if err != nil {
		t.Fatalf("ParseCheck: %v", err)
	}
	want := Check{
		TaskID: "task-003", CurrentIteration: 2, MaxIterations: 3,
		Test:    TestResult{Status: "fail", Output: "FAIL x"},
		Review:  ReviewResult{Status: "pending"},
		History: []Check{{CurrentIteration: 1, Test: TestResult{Status: "fail"}, Review: ReviewResult{Status: "pending"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseCheck() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseCheckErrors(t *testing.T) {
	t.Parallel()
	const head = "iteration_check:\n  task_id: t\n  current_iteration: 1\n"
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "empty document"},
		{"not yaml", "a: [", "yaml:"},
		{"wrong root", "check: {}\n", `1:1: unknown key "check"`},
		{"root list", "- 1\n", "1:1: expected a mapping"},
		{"unknown key", head + "  test_result: {status: pass}\n  colour: red\n", `5:3: unknown key "colour"`},
		{"wrong type", "iteration_check:\n  task_id: t\n  current_iteration: two\n  test_result: {status: pass}\n", "3:22: expected an integer"},
		{"task id number", "iteration_check:\n  task_id: 3\n  current_iteration: 1\n  test_result: {status: pass}\n", "2:12: expected a string"},
		{"bad status", head + "  test_result: {status: flaky}\n", `4:25: status "flaky" is not one of pass, fail`},
		{"bad review", head + "  test_result: {status: pass}\n  review_result: {status: maybe}\n", `5:27: status "maybe"`},
		{"missing test", head, "missing key test_result"},
		{"missing status", head + "  test_result: {output: x}\n", "test_result: missing key status"},
		{"zero iteration", "iteration_check:\n  task_id: t\n  current_iteration: 0\n  test_result: {status: pass}\n", "expected an integer from 1"},
		{"duplicate", head + "  test_result: {status: pass}\n  task_id: u\n", "5:3: duplicate key task_id"},
		{"nested history", head + "  test_result: {status: pass}\n  history:\n    - current_iteration: 1\n      test_result: {status: fail}\n      history: []\n", "history inside history"},
		{"history not list", head + "  test_result: {status: pass}\n  history: {}\n", "history: expected a list"},
		{"alias", "x: &a {}\niteration_check: *a\n", "unknown key \"x\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseCheck([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseCheck() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func FuzzParseCheck(f *testing.F) {
	f.Add([]byte("iteration_check:\n  task_id: t\n  current_iteration: 1\n  test_result: {status: fail, output: \"Expected: a to contain b\\nReceived: undefined\"}\n"))
	f.Add([]byte("iteration_check:\n  task_id: t\n  current_iteration: 3\n  test_result: {status: fail, output: \"Expected: \\\"1\\\"\\nReceived: 1\"}\n  history: [{current_iteration: 1, test_result: {status: fail}}]\n"))
	f.Add([]byte("a: &a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCheck(data)
		if err != nil {
			return
		}
		if _, err := New(DefaultPolicy()).DecideCheck(c).YAML(); err != nil {
			t.Fatalf("YAML: %v", err)
		}
	})
}
