package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadModule: any go.mod gives a module path without a panic, and the path
// is one that the file declares on a "module" line.
func FuzzReadModule(f *testing.F) {
	f.Add("module example.com/calc\n\ngo 1.22\n")
	f.Add("// comment\nmodule \"quoted/path\"\n")
	f.Add("go 1.22\nrequire (\n\tx v1\n)\n")
	f.Add(strings.Repeat("x", 1<<16) + "\nmodule late\n")
	f.Fuzz(func(t *testing.T, gomod string) {
		path := filepath.Join(t.TempDir(), "go.mod")
		if err := os.WriteFile(path, []byte(gomod), 0o600); err != nil {
			t.Fatal(err)
		}
		mod := readModule(path)
		if mod != "" && !strings.Contains(gomod, mod) {
			t.Fatalf("readModule = %q, which the file does not hold", mod)
		}
		if strings.ContainsAny(mod, "\n") {
			t.Fatalf("readModule = %q spans lines", mod)
		}
	})
}
