package runname

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
	}{
		{"fix-tests", true}, {"a", true}, {"v1.2_b", true}, {"20260101-000000", true},
		{"", false}, {"..", false}, {"a..b", false}, {".hidden", false}, {"-x", false},
		{"a/b", false}, {`a\b`, false}, {"a b", false}, {"é", false}, {strings.Repeat("x", 65), false},
		{strings.Repeat("x", 64), true}, {"_x", false}, {"x_", true}, {"x-", true}, {"x.y", true},
		// The ends of each allowed range, and the characters just outside them.
		{"a", true}, {"z", true}, {"A", true}, {"Z", true}, {"0", true}, {"9", true},
		{"`", false}, {"{", false}, {"@", false}, {"[", false}, {"/", false}, {":", false},
		{"x`", false}, {"x{", false}, {"x@", false}, {"x[", false}, {"x:", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tt.name)
			if (err == nil) != tt.ok {
				t.Fatalf("Check(%q) = %v, want ok=%v", tt.name, err, tt.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "letters, digits") {
				t.Errorf("error %q does not say what is allowed", err)
			}
		})
	}
}

// A refused character is named with its position counted from 1, in
// characters, as an editor counts columns.
func TestCheckPosition(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"my build", `character ' ' at position 3;`},
		{"_x", `character '_' at position 1;`},
		{"éa b", `character 'é' at position 1;`},
		{"ab/é", `character '/' at position 3;`},
		{"aé", `character 'é' at position 2;`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tt.name)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check(%q) = %v, want it to say %q", tt.name, err, tt.want)
			}
		})
	}
}
