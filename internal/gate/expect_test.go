package gate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseJSExcerpts: a jest or vitest failure pasted short, its assertion
// under "FAIL file" without the block header, is a failure of that file with
// its expected and received values, what they say to change first.
func TestParseJSExcerpts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     []string // kind id: message
	}{
		{"the iteration-control document's example", "FAIL src/auth/login.test.ts\nExpected: token to contain userId\nReceived: undefined",
			[]string{"test src/auth/login.test.ts: token must contain userId (received undefined) | Expected: token to contain userId | Received: undefined"}},
		{"a member of the wrong type", "FAIL src/auth/login.test.ts\nExpected: { userId: 123 }\nReceived: { userId: \"123\" }\n",
			[]string{`test src/auth/login.test.ts: userId must be the number 123, not the string "123" | Expected: { userId: 123 } | Received: { userId: "123" }`}},
		{"indented, with the expect call", "FAIL src/a.test.js\n    expect(decoded.userId).toBe(42)\n    Expected: 42\n    Received: \"42\"\n",
			[]string{`test src/a.test.js: userId must be the number 42, not the string "42" | Expected: 42 | Received: "42"`}},
		{"values that say no more than themselves", "FAIL src/a.test.js\nExpected: \"user42\"\nReceived: undefined\n",
			[]string{`test src/a.test.js: Expected: "user42" | Received: undefined`}},
		{"vitest's file line with an assertion under it", " FAIL  src/a.test.ts\nAssertionError: expected 5 to be 6 // Object.is equality\n",
			[]string{"test src/a.test.ts: AssertionError: expected 5 to be 6 // Object.is equality"}},
		{"vitest's file line with a load error stays a build failure", " FAIL  src/a.test.ts [ src/a.test.ts ]\nSyntaxError: Unexpected token\n",
			[]string{"build src/a.test.ts: SyntaxError: Unexpected token"}},
		{"an assertion under PASS is nobody's failure", "PASS src/a.test.js\nExpected: 1\nReceived: 1\n", nil},
		{"the block header still names the test", "FAIL src/a.test.js\n  ● login › issues a token\n\n    Expected: token to contain userId\n    Received: undefined\n",
			[]string{"test src/a.test.js › login issues a token: token must contain userId (received undefined) | Expected: token to contain userId | Received: undefined"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Parse(strings.NewReader(tt.in), Options{Format: "auto"})
			if err != nil || rep.Format != "js-text" {
				t.Fatalf("Parse() format %s, err %v; want js-text", rep.Format, err)
			}
			var got []string
			for _, f := range rep.Findings {
				got = append(got, string(f.Kind)+" "+f.ID+": "+f.Message)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExpectationHint: what an Expected and Received pair says to change,
// and nothing when it says no more than itself.
func TestExpectationHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"a member missing", []string{"Expected: token to contain userId", "Received: undefined"}, "token must contain userId (received undefined)"},
		{"a property missing, null", []string{"Expected: user to have property 'id'", "Received: null"}, "user must contain id (received null)"},
		{"a member present is no missing member", []string{"Expected: token to contain userId", "Received: abc"}, ""},
		{"a number received as a string", []string{"Expected: 42", `Received: "42"`}, `the value must be the number 42, not the string "42"`},
		{"a string received as a number, named by expect", []string{`expect(t.id).toBe("7")`, `Expected: "7"`, "Received: 7"}, `id must be the string "7", not the number 7`},
		{"expect(received) names nothing", []string{`expect(received).toBe(expected)`, `Expected: "7"`, "Received: 7"}, `the value must be the string "7", not the number 7`},
		{"object members", []string{`Expected: { userId: 123, name: "a" }`, `Received: { userId: "123", name: "a" }`}, `userId must be the number 123, not the string "123"`},
		{"jest's quoted keys", []string{`Expected: {"n": 1.5}`, `Received: {"n": '1.5'}`}, `n must be the number 1.5, not the string '1.5'`},
		{"different numbers", []string{"Expected: 3", "Received: 2"}, ""},
		{"no received line", []string{"Expected: 3"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := expectationHint(tt.lines); got != tt.want {
				t.Errorf("expectationHint(%q) = %q, want %q", tt.lines, got, tt.want)
			}
		})
	}
}
