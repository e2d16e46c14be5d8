package suggest

import "testing"

func TestClosest(t *testing.T) {
	t.Parallel()
	keys := []string{"max_iterations", "failure_threshold", "timeout", "token_budget"}
	for in, want := range map[string]string{
		"max_iteration":    "max_iterations",
		"failure_treshold": "failure_threshold",
		"timeot":           "timeout",
		"budget":           "",
		"max_":             "max_iterations", // the one name it begins
		"token":            "token_budget",
		"time":             "timeout",
		"fail":             "failure_threshold",
		"tim":              "",
		"":                 "",
	} {
		if got := Closest(in, keys); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Closest("claude", []string{"claude-json", "claude-stream-json"}); got != "" {
		t.Errorf("a prefix of two names: got %q, want none", got)
	}
	if got := Closest("ab", []string{"ac", "aa"}); got != "aa" {
		t.Errorf("tie: got %q, want the lexically smaller aa", got)
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "abc", 0}, {"kitten", "sitting", 3}, {"a", "", 1}} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
