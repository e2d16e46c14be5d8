package agent

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNarrate(t *testing.T) {
	t.Parallel()
	fixed := []string{
		"agent: The test expects a sum; I will fix Add.",
		"tool %s: sed -i 's/return a - b/return a + b/' calc.go && echo fixed",
		"agent: Fixed calc.go: Add now adds.",
	}
	with := func(tool string) []string {
		out := slices.Clone(fixed)
		out[1] = strings.Replace(out[1], "%s", tool, 1)
		return out
	}
	tests := []struct {
		format, file string
		want         []string
	}{
		{FormatClaudeStream, "real/claude-2.1.197-success.stdout.jsonl", with("Bash")},
		{FormatCodex, "real/codex-0.169.0-success.stdout.jsonl", []string{
			"agent: The test expects a sum; I will fix Add.",
			`tool shell: /bin/bash -lc "sed -i 's/return a - b/return a + b/' calc.go && echo fixed"`,
			"agent: Fixed calc.go: Add now adds.",
		}},
		{FormatGeminiStream, "real/gemini-0.61.0-success.stdout.jsonl", with("run_shell_command")},
		{FormatOpencode, "real/opencode-1.18.33-success.stdout.jsonl", with("bash")},
		{FormatCopilot, "real/copilot-1.0.102-success.stdout.jsonl", []string{
			"agent: I will fix it.",
			"tool bash: sed -i 's/return a - b/return a + b/' calc.go && echo edited",
			"agent: Fixed calc.go: Add now adds.",
		}},
		{FormatCursorStream, "cursor-stream-json-1.jsonl", []string{"agent: OK"}},
		{FormatGoose, "written/goose-stream.jsonl", []string{"agent: All tests pass now."}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			t.Parallel()
			got := narrateFile(t, tt.format, filepath.Join("testdata", tt.file))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("narrated %s (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

func TestNarrateLines(t *testing.T) {
	t.Parallel()
	n := newNarrator(FormatClaudeStream)
	long := strings.Repeat("word ", 100)
	said := n.Line([]byte(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"two\n\nlines"},{"type":"tool_use","name":"Read","input":{"file_path":"a.go"}},{"type":"tool_use","name":"X","input":{"n":1}},{"type":"text","text":"` + long + `"}]}}`))
	said = append(said, n.Line([]byte("not json: kept"))...)
	said = append(said, n.Line([]byte(`{"type":"result","result":"left out"}`))...)
	got := lines(said)
	want := []string{"agent: two lines", "tool Read: a.go", `tool X: {"n":1}`, "agent: " + strings.TrimSpace(long)[:narrateWidth-1] + "…", "not json: kept"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if newNarrator(FormatText) != nil || newNarrator(FormatAider) != nil {
		t.Error("a text format is narrated; its output should be echoed as it is")
	}
}

func narrateFile(t *testing.T, format, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := newNarrator(format)
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, lines(n.Line(sc.Bytes()))...)
	}
	return append(out, lines(n.Flush())...)
}

func lines(s []said) []string {
	var out []string
	for _, l := range s {
		out = append(out, l.String())
	}
	return out
}

// The live status is told each tool call the agent starts, and "" once it
// writes text again; with nothing to echo, only that.
func TestNarrateToTellsTheToolCall(t *testing.T) {
	t.Parallel()
	stream := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I will test."},{"type":"tool_use","name":"Bash","input":{"command":"go test ./..."}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Read","input":{"file_path":"a.go"}}]}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Read","input":{"file_path":"a.go"}}]}}
not json
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}
`
	for _, echo := range []bool{false, true} {
		var told []string
		var out strings.Builder
		var w io.Writer
		if echo {
			w = &out
		}
		nw := narrateTo(w, FormatClaudeStream, 1<<20, nil, func(c string) { told = append(told, c) })
		if _, err := io.WriteString(nw, stream); err != nil {
			t.Fatal(err)
		}
		if err := nw.Close(); err != nil {
			t.Fatal(err)
		}
		want := []string{"Bash: go test ./...", "Read: a.go", ""}
		if diff := cmp.Diff(want, told); diff != "" {
			t.Errorf("echo %v: told (-want +got):\n%s", echo, diff)
		}
		if want := "agent: I will test.\ntool Bash: go test ./...\ntool Read: a.go\ntool Read: a.go\nnot json\nagent: Done.\n"; echo && out.String() != want {
			t.Errorf("echoed %q, want %q", out.String(), want)
		}
	}
	if narrateTo(nil, FormatText, 1<<20, nil, func(string) {}) != nil {
		t.Error("a text format's output told tool calls")
	}
}

// TestUntoldIsSkippedUndecoded: the records the narrator skips without
// decoding are well-formed objects whose type it says nothing of, as
// encoding/json reads them: every line of every recorded stream, and the
// cases where the two readings could part.
func TestUntoldIsSkippedUndecoded(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/real/*.stdout.jsonl")
	more, _ := filepath.Glob("testdata/*.jsonl")
	skipped := 0
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] != '{' {
				continue
			}
			var r record
			err := json.Unmarshal([]byte(line), &r)
			if untold([]byte(line), false) {
				skipped++
				if err != nil || toldTypes[r.Type] {
					t.Errorf("%s: untold(%.100q), which the decoder reads as type %q (err %v)", f, line, r.Type, err)
				}
			}
			// Without raw lines told, a line that does not decode may be
			// skipped too: it would be a raw line.
			if untold([]byte(line), true) && err == nil && toldTypes[r.Type] {
				t.Errorf("%s: untold(%.100q, raw unused), which the decoder reads as type %q", f, line, r.Type)
			}
		}
	}
	if skipped == 0 {
		t.Error("no recorded line skipped: the test reads nothing")
	}
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"hi"}}}`, true},
		{`{"type":"system","subtype":"init"}`, true},
		{`{"event":{}}`, true},
		{`{"type":"assistant","message":{"role":"assistant","content":[]}}`, false},
		{`{"TYPE":"assistant"}`, false},                       // encoding/json matches keys in any case
		{`{"type":"stream_event","type":"assistant"}`, false}, // the last one wins
		{`{"typ\u0065":"assistant"}`, false},                  // an escaped key: the decoder's to read
		{`{"type":["assistant"]}`, false},                     // not a string: the decoder fails, a raw line
		{`{"type":"stream_event",`, false},                    // cut: a raw line
		{`{"type":"stream_event"} trailing`, false},
		{`{"type":"error","message":"boom"}`, false},        // the decoder fails: a raw line
		{`{"type":"stream_event","event":{"a":01}}`, false}, // not JSON inside: a raw line
		{`{"type":"stream_event","Delta":true}`, false},
		{`{"type":"stream_event","message":null,"role":null}`, true},
	} {
		if got := untold([]byte(c.line), false); got != c.want {
			t.Errorf("untold(%s) = %v, want %v", c.line, got, c.want)
		}
	}
	// Without raw lines told: a record that would not decode is of no use.
	for _, c := range []struct {
		line string
		want bool
	}{
		{`{"type":"error","message":"boom"}`, true},
		{`{"type":"stream_event","event":{"a":01}}`, true},
		{`{"type":"assistant","message":"boom"}`, false}, // a told type: the decoder's
		{`{"TYPE":"tool_use"}`, false},
		{`{"typ\u0065":"stream_event"}`, false},
		{`{"type":"stream_event",`, false},
	} {
		if got := untold([]byte(c.line), true); got != c.want {
			t.Errorf("untold(%s, raw unused) = %v, want %v", c.line, got, c.want)
		}
	}
}
