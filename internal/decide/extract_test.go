package decide

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFailuresOnRealOutputs reads the real tool outputs of fixtures/gates (copied
// under testdata/input) and checks the actionable items drawn from them.
func TestFailuresOnRealOutputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []string
	}{
		{"go_test_plain_mixed.txt", []string{
			`Test failed: expected token to contain userId "user42", received "tok-X" (TestLogin)`,
			`Test failed: Add(2,2) expected 5, received 4 (TestTable/2+2)`,
			`Error: panic: assignment to entry in nil map [recovered, repanicked] (TestPanics)`,
			`Test failed: TestNested/outer/inner_fails`,
		}},
		{"jest_default_reporter.txt", []string{
			`Test failed: expected "user42", received undefined (jtest/login.test.js › token contains userId)`,
			`Error: TypeError: Cannot read properties of undefined (reading 'id') (jtest/login.test.js › throws TypeError)`,
			`Error: SyntaxError: /src/nodesample/jtest/broken.test.js: Unexpected token (1:10) (jtest/broken.test.js › Test suite failed to run)`,
			`Test failed: deep equal (jtest/login.test.js)`,
			`Test failed: times out (jtest/login.test.js)`,
		}},
		{"vitest_default.txt", []string{
			`Test failed: expected 'user42', received undefined (token contains userId)`,
			`Test failed: Cannot read properties of undefined (reading 'id') (throws TypeError)`,
			`Test failed: expected { a: 1, b: [ 1, 3 ] }, received { a: 1, b: [ 1, 2 ] } (deep equal)`,
			`Test failed: Test timed out in 300ms. (times out)`,
			`Error: RollupError: Parse failure: Expression expected (vtest/broken.test.js)`,
		}},
		{"unittest_v.txt", []string{
			`Error: KeyError: 'missing' (test_error)`,
			`Error: AssertionError: 2 not less than 2 (test_subtests)`,
			`Error: AssertionError: 'user42' not found in '' : expected token to contain userId (test_token_contains_user)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile("testdata/input/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range failures(string(data)) {
				got = append(got, f.Message)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("failures() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTypeMismatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		exp, rec string
		want     bool
	}{{`"42"`, "42", true}, {"42", `'42'`, true}, {"42", "42", false}, {`"a"`, "a", false}, {"1", "2", false}} {
		if got := typeMismatch(tt.exp, tt.rec); got != tt.want {
			t.Errorf("typeMismatch(%s, %s) = %v", tt.exp, tt.rec, got)
		}
	}
}
