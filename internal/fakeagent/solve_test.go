package fakeagent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFailingNamed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, prompt string
		want         []string
	}{
		{"agentloop's feedback items", "tests failed (exit 1): 2 test\n1. TEST calc.TestSub (calc/calc_test.go:12): Sub(5, 3) = 8\nAlready failing before the run:\n2. TEST calc.TestAdd (calc/calc_test.go:7): x", []string{"TestSub", "TestAdd"}},
		{"go test's own output", "--- FAIL: TestAdd (0.00s)\n    calc_test.go:7: Add(2, 3) = -1, want 5\n--- FAIL: TestSub (0.00s)", []string{"TestAdd", "TestSub"}},
		{"a rollback sentence", "Rolled back to iteration 1; what fails there: calc.TestSub, calc.TestMul", []string{"TestSub", "TestMul"}},
		{"a focus", "Make the smallest change that fixes this one failure first: calc.TestUp", []string{"TestUp"}},
		{"a lesson or a fixed test is no failure", "iteration 1 (first try): calc.TestDown now failing\nfixed: calc.TestUp", nil},
	} {
		if got := failingNamed(tt.prompt); !slices.Equal(got, tt.want) {
			t.Errorf("%s: failingNamed = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSolve(t *testing.T) {
	t.Parallel()
	src := "package calc\n\nfunc Add(a, b int) int { return a - b } // BUG(TestAdd): a - b // FIX: a + b\n\nfunc Sub(a, b int) int { return a + b } // BUG(TestSub): a + b // FIX: a - b\nfunc oops() int { return undefinedThing } // SETBACK\n"
	for _, tt := range []struct {
		name, prompt string
		limit        int
		has, hasNot  []string
	}{
		{name: "fixes what is named, only that", prompt: "1. TEST calc.TestSub (calc_test.go:9): Sub", has: []string{"return a - b }\n", "BUG(TestAdd)", "SETBACK"}},
		{name: "fixes every named one", prompt: "--- FAIL: TestAdd\n--- FAIL: TestSub", hasNot: []string{"BUG("}},
		{name: "one at most", prompt: "--- FAIL: TestAdd\n--- FAIL: TestSub", limit: 1, has: []string{"BUG(TestSub)"}, hasNot: []string{"BUG(TestAdd)"}},
		{name: "repairs its own break when the build is reported broken", prompt: "1. BUILD (calc.go:6): undefined: undefinedThing", has: []string{"BUG(TestAdd)"}, hasNot: []string{"SETBACK"}},
		{name: "nothing named, nothing done", prompt: "Make the tests pass.", has: []string{"BUG(TestAdd)", "BUG(TestSub)", "SETBACK"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "calc.go")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := solve(path, tt.prompt, tt.limit); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			for _, s := range tt.has {
				if !strings.Contains(string(b), s) {
					t.Errorf("lacks %q:\n%s", s, b)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(string(b), s) {
					t.Errorf("still has %q:\n%s", s, b)
				}
			}
		})
	}
}
