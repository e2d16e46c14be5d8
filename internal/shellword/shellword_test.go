package shellword

import "testing"

func TestShellJoin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{[]string{"claude", "-p", "PROMPT"}, "claude -p PROMPT"},
		{[]string{"sh", "-c", "go test | tee x"}, "sh -c 'go test | tee x'"},
		{[]string{"echo", "it's", ""}, `echo 'it'\''s' ''`},
	} {
		if got := Join(tt.in); got != tt.want {
			t.Errorf("Join(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
