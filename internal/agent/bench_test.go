package agent

import (
	"bytes"
	"testing"
)

func BenchmarkClaudeStream(b *testing.B) {
	var buf bytes.Buffer
	if _, err := WriteSyntheticClaudeStream(&buf, 8<<20); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p := newClaudeParser(false)
		rest := data
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest)
			}
			p.Line(rest[:i])
			rest = rest[min(i+1, len(rest)):]
		}
		if !p.Result().Terminal {
			b.Fatal("no terminal record")
		}
	}
}

// TestSyntheticStreamParses checks the benchmark's transcript: every message
// counted once, the result record authoritative.
func TestSyntheticStreamParses(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	n, err := WriteSyntheticClaudeStream(&buf, 1<<20)
	if err != nil || n < 10 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	p := newClaudeParser(false)
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	for _, l := range lines[:len(lines)-1] {
		p.Line(l)
	}
	var wantIn, wantOut int64
	for i := range n {
		wantIn += int64(10 + i%7)
		wantOut += int64(200 + i%50)
	}
	if u := p.Result().Usage; u.InputTokens != wantIn || u.OutputTokens != wantOut || u.CacheWriteTokens != int64(300*n) {
		t.Errorf("live usage %+v, want input %d output %d", u, wantIn, wantOut)
	}
	p.Line(lines[len(lines)-1])
	if o := p.Result(); !o.Terminal || o.Usage.CostUSD != 12.5 || o.Usage.InputTokens != 1 || o.Usage.Turns != n {
		t.Errorf("final %+v", o)
	}
}
