package gate

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/internal/evidence"
)

// FuzzParse runs every parser (and detection) on arbitrary input: no panic, and
// the report stays bounded.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "*", "*"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 20000 {
			f.Add(b, uint8(0))
		}
	}
	f.Add([]byte(`{"Action":"run","Package":"p","Test":"T"}`+"\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		names := append([]string{"auto"}, Formats()...)
		name := names[int(which)%len(names)]
		rep, err := Parse(bytes.NewReader(data), Options{Format: name, WorkDir: "/src"})
		if err != nil {
			t.Fatalf("Parse(%s): %v", name, err)
		}
		if len(rep.Findings) > MaxFindings || len(rep.Tail) > 20*400 {
			t.Fatalf("unbounded report: %d findings, %d tail bytes", len(rep.Findings), len(rep.Tail))
		}
		res := Judge(Gate{Name: "g"}, 1, rep, nil)
		if out := Render(nil, nil, RenderOptions{}); out != "" {
			t.Fatal("empty render not empty")
		}
		if out := []rune(Render([]evidence.GateResult{res}, nil, RenderOptions{})); len(out) > DefaultMaxLength {
			t.Fatalf("render over budget: %d", len(out))
		}
	})
}
