package gate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/jsonscan"
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
	// Jest and vitest failures pasted short, without the block header.
	for _, s := range []string{
		"FAIL src/auth/login.test.ts\nExpected: token to contain userId\nReceived: undefined",
		"FAIL src/auth/login.test.ts\nExpected: { userId: 123 }\nReceived: { userId: \"123\" }\n",
		"FAIL a.test.js\n  expect(x.id).toBe(1)\n  Expected: 1\n  Received: '1'\n",
		" FAIL  a.test.ts\nAssertionError: expected 5 to be 6\n- Expected\n+ Received\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
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

// FuzzEventDecoder checks the fast go test -json event decoder against
// encoding/json on every valid line whose keys are spelled exactly (encoding/json
// also matches "action" to Action) and whose text is valid UTF-8.
func FuzzEventDecoder(f *testing.F) {
	f.Add([]byte(`{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"example.com/p","Test":"TestX","Output":"--- FAIL: TestX (0.00s)\n"}`))
	f.Add([]byte(`{"Action":"pass","Package":"p","Elapsed":0.25}`))
	f.Add([]byte(`{"ImportPath":"p [p.test]","Action":"build-output","Output":"x.go:1:2: undefined: \u00e9\\\"\n"}`))
	f.Add([]byte(`{"Action":"fail","Package":"p","FailedBuild":"p [p.test]","Extra":{"nested":[1]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var d eventDecoder
		var got goEvent
		ok := d.decode(line, &got)
		if !json.Valid(line) || !utf8.Valid(line) || bytes.TrimSpace(line)[0] != '{' {
			return
		}
		exact := true
		jsonscan.Fields(line, func(k, _ []byte) bool {
			for _, name := range []string{"Action", "Package", "ImportPath", "Test", "Output", "FailedBuild", "Elapsed"} {
				if strings.EqualFold(string(k), name) && string(k) != name || bytes.IndexByte(k, '\\') >= 0 {
					exact = false
				}
			}
			return exact
		})
		var want goEvent
		if json.Unmarshal(line, &want) != nil || !exact {
			return
		}
		if !ok || got != want {
			t.Errorf("decode(%q) = %v %+v, want %+v", line, ok, got, want)
		}
	})
}

// FuzzCutCause cuts arbitrary messages: no panic, never longer than asked.
func FuzzCutCause(f *testing.F) {
	for _, s := range []string{
		"AssertionError: assert 'usage: cli [OPTIONS] FOO' == 'Usage: cli [OPTIONS] FOO' | - Usage: cli | + usage: cli",
		"AssertionError: assert ['usage: cmd ...ument 'ARG'.\"] == ['Usage: cmd ...ument 'ARG'.\"]",
		"expected '/foo//bar' to be '/foo/bar' // Object.is equality",
		"-TESTS_TOTAL=59 | +TESTS_TOTAL=64", "assertion `left == right` failed | left: 4 | right: 5", "' == '", "[ == ]",
	} {
		f.Add(s, uint8(20))
	}
	f.Fuzz(func(t *testing.T, msg string, n uint8) {
		got := cutCause(msg, int(n))
		if fits := utf8.RuneCountInString(msg) <= int(n); fits && got != msg || !fits && utf8.RuneCountInString(got) > int(n) {
			t.Fatalf("cutCause(%q, %d) = %q", msg, n, got)
		}
	})
}
