package plan

import (
	"slices"
	"testing"
)

func TestShellPrograms(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"gotest -json ./... 2>&1", []string{"gotest"}},
		{"cd sub && go test ./... 2>&1 | tee x.log", []string{"go", "tee"}},
		{"GOFLAGS=-mod=mod go vet ./... ; golangci-lint run", []string{"go", "golangci-lint"}},
		{"go test ./... &> out.txt || true", []string{"go"}},
		{"./check.sh && bin/lint", nil},
		{"export PATH=$PATH:./bin; mytool", nil},
		{"f() { go test; }; f", nil},
		{"if true; then make; fi", []string{"make"}},
		{`"quoted" arg`, nil},
	}
	for _, tt := range tests {
		if got := ShellPrograms(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("ShellPrograms(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func FuzzShellPrograms(f *testing.F) {
	for _, s := range []string{"go test ./... 2>&1 | tee x", "a=1 b && c; d | e", "f() { x; }", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, p := range ShellPrograms(line) {
			if !plainName(p) || shellWords[p] {
				t.Fatalf("ShellPrograms(%q) names %q, not a plain program name", line, p)
			}
		}
	})
}
