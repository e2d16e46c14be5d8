package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/redact"
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

// BenchmarkParsers reads about 8 MiB of each CLI's output the way the runner
// reads a live agent: bytes through proc.Lines into the watch, which hands each
// line to the parser and checks its live usage against limits (set, so that
// the check runs). Each shape is a real recording's records between its first
// and its last repeated, then its last (terminal) record; "claude-deltas" is
// Claude Code with partial messages (text-delta records), text is plain lines.
func BenchmarkParsers(b *testing.B) {
	for _, c := range []struct{ name, format, file string }{
		{"claude", FormatClaudeStream, "claude-2.1.197-success.stdout.jsonl"},
		{"claude-deltas", FormatClaudeStream, ""},
		{"codex", FormatCodex, "codex-0.169.0-success.stdout.jsonl"},
		{"gemini", FormatGeminiStream, "gemini-0.61.0-success.stdout.jsonl"},
		{"opencode", FormatOpencode, "opencode-1.18.33-success.stdout.jsonl"},
		{"qwen", FormatQwenStream, "qwen-0.24.4-success.stdout.jsonl"},
		{"text", FormatText, ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			data := benchStream(b, c.name, c.file, 8<<20)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				p, err := NewParser(c.format)
				if err != nil {
					b.Fatal(err)
				}
				w := &watch{parser: p, prices: DefaultPrices(), cancel: func(error) {},
					limits: budget.Limits{MaxTokens: 1 << 62, MaxCostUSD: 1e12}}
				lines := proc.Lines(DefaultMaxLine, w.stdout)
				_, _ = lines.Write(data)
				_ = lines.Close()
				if out, _ := w.result(); HasTerminal(c.format) && !out.Terminal {
					b.Fatal("no terminal record")
				}
			}
		})
	}
}

// benchStream returns about size bytes of output of the named shape.
func benchStream(b *testing.B, name, file string, size int) []byte {
	b.Helper()
	var out bytes.Buffer
	switch {
	case name == "text":
		line := []byte("ok  \tgithub.com/x/y/pkg\t0.012s and some words of an agent's answer\n")
		for out.Len() < size {
			out.Write(line)
		}
		return out.Bytes()
	case file == "":
		deltas := func(w *bytes.Buffer) {
			for d := range 100 {
				w.WriteString(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me look at the failing test and the code it calls `)
				w.WriteByte(byte('a' + d%26))
				w.WriteString(`. "}},"session_id":"fa0e0000-0000-4000-8000-000000000000","parent_tool_use_id":null,"uuid":"u-0"}` + "\n")
			}
		}
		for i := 0; out.Len() < size; i++ {
			deltas(&out)
			out.WriteString(`{"type":"assistant","message":{"id":"msg_` + string(rune('a'+i%26)) + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":10,"output_tokens":100}},"session_id":"fa0e0000-0000-4000-8000-000000000000"}` + "\n")
		}
		out.WriteString(`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done","session_id":"s","usage":{"input_tokens":1,"output_tokens":2}}` + "\n")
		return out.Bytes()
	}
	rec, err := os.ReadFile(filepath.Join("testdata", "real", file))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimRight(rec, "\n"), []byte("\n"))
	if len(lines) < 3 {
		b.Fatalf("%s: %d records, want at least 3", file, len(lines))
	}
	out.Write(lines[0])
	for out.Len() < size {
		for _, l := range lines[1 : len(lines)-1] {
			out.Write(l)
		}
	}
	out.Write(lines[len(lines)-1])
	out.WriteByte('\n')
	return out.Bytes()
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

// BenchmarkOutputPath is the runner's output path for plain text in process:
// 64 MiB of the shapes of bench/output.sh (fakeagent's flood and flood-raw),
// in the 256 KiB reads of proc's pumps, through the redacting writer into the
// bounded log and the watch's lines, as Run wires them.
func BenchmarkOutputPath(b *testing.B) {
	for _, c := range []struct{ name, chunk string }{
		{"lines", "flood flood flood flood flood flood flood flood flood flood flood\n"},
		{"raw", "flood "},
	} {
		b.Run(c.name, func(b *testing.B) {
			chunk := bytes.Repeat([]byte(c.chunk), (256<<10)/len(c.chunk)+1)[:256<<10]
			const size = 64 << 20
			b.SetBytes(size)
			b.ReportAllocs()
			dir := b.TempDir()
			red := redact.New(os.Environ())
			for b.Loop() {
				p, _ := NewParser(FormatText)
				w := &watch{parser: p, prices: DefaultPrices(), cancel: func(error) {}, textMarker: true, marker: "DONE", still: true}
				log, err := proc.NewLog(filepath.Join(dir, "agent.log"), DefaultLogHead, DefaultLogTail)
				if err != nil {
					b.Fatal(err)
				}
				lines := w.stdoutLines(FormatText, DefaultMaxLine)
				rw := red.NewWriter(fanout{log, lines, nil})
				for n := 0; n < size; n += len(chunk) {
					_, _ = rw.Write(chunk)
				}
				_ = rw.Flush()
				_ = lines.Close()
				_ = log.Close()
			}
		})
	}
}
