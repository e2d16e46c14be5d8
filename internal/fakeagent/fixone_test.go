package fakeagent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFixLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, err string
	}{
		{"\treturn a - b // BUG: a - b // FIX: a + b\n", "\treturn a + b\n", ""},
		{"x := f(1) // BUG:1 //FIX: 2", "", "want a line"},
		{"x := f(1) // BUG: 1 // FIX: 2", "x := f(2)", ""},
		{"x := f(1) // BUG: f(1) // FIX:", "x :=", ""},
		{"x := 1 // BUG: y // FIX: z\n", "", "does not contain"},
		{"x := 1 // BUG: // FIX: z\n", "", "want a line"},
	}
	for _, tt := range tests {
		got, err := fixLine(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("fixLine(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("fixLine(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestFixOneFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "calc.go")
	src := "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b // BUG: a - b // FIX: a + b\n}\n\n" +
		"func Mul(a, b int) int {\n\treturn a + b // BUG: + // FIX: *\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct{ msg, contains string }{
		{"fixed " + path + ":4", "\treturn a + b\n}\n\nfunc Mul"},
		{"fixed " + path + ":8", "\treturn a * b\n}\n"},
		{"nothing to fix", "\treturn a * b\n}\n"},
	}
	for i, s := range steps {
		msg, err := fixOne(path)
		if err != nil || !strings.Contains(msg, s.msg) {
			t.Fatalf("step %d: fixOne = %q, %v; want %q", i, msg, err, s.msg)
		}
		b, _ := os.ReadFile(path)
		if !strings.Contains(string(b), s.contains) {
			t.Errorf("step %d: file is\n%s\nwant it to contain %q", i, b, s.contains)
		}
	}
}
