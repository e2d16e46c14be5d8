package redact

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// recorded is the output of real agent CLIs and gates in this repository's
// test data, the text the redactor reads most.
func recorded(tb testing.TB) []byte {
	tb.Helper()
	var all []byte
	for _, g := range []string{"../agent/testdata/*.jsonl", "../agent/testdata/real/*.jsonl", "../gate/testdata/fixtures/*/*"} {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			all = append(all, b...)
			if len(b) > 0 && b[len(b)-1] != '\n' {
				all = append(all, '\n')
			}
		}
	}
	return all
}

// BenchmarkWriter streams the recorded outputs through a Writer, in the 256 KiB
// reads of agentloop's output pumps. bench/redact compares it with tee.
func BenchmarkWriter(b *testing.B) {
	text := recorded(b)
	w := New([]string{"ANTHROPIC_API_KEY=sk-ant-api03-Zq8vN2xLr5Tb9WkMd3HfYp7Gc1Js6Ea4Ru0Xo2Vn8Qi5Lt3Bw9Km7Pz1Dy6Hg4Ce0Fa2Ns5Jr8Ux3Ml7Ov1Ib9Tq6Wd4Sk2Ye8Zh0Gf5Pn3Rc7AA"}).NewWriter(io.Discard)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		for p := text; len(p) > 0; {
			n := min(len(p), 256<<10)
			_, _ = w.Write(p[:n])
			p = p[n:]
		}
	}
}
