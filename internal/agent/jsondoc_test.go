package agent

import "testing"

// A pretty-printed document is whole only at its outer close, even when one of
// its inner lines is valid JSON alone; a whole object on a line of its own
// (NDJSON) ends one that never closed.
func TestDocAccum(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string // the documents returned, in order
	}{
		{"one line", []string{`noise`, `{"a":1}`}, []string{`{"a":1}`}},
		{"pretty, with an inner line that is JSON alone", []string{"[", "  true", "]"}, []string{"[\n  true\n]"}},
		{"pretty object", []string{"{", `  "a":`, "  5", "}"}, []string{"{\n  \"a\":\n  5\n}"}},
		{"an object line ends an unclosed document", []string{"{", `  "a": 1,`, `{"b":2}`}, []string{`{"b":2}`}},
	} {
		var d docAccum
		var got []string
		for _, l := range tc.lines {
			if doc, ok := d.add([]byte(l)); ok {
				got = append(got, string(doc))
			}
		}
		if len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
			t.Errorf("%s: documents %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The model of a Claude stream is the first real one its messages name; the
// "<synthetic>" messages Claude Code writes itself are not a model.
func TestClaudeStreamModel(t *testing.T) {
	t.Parallel()
	msg := func(id, model string) string {
		return `{"type":"assistant","message":{"id":"` + id + `","model":"` + model + `","usage":{"input_tokens":10,"output_tokens":1}},"session_id":"s"}`
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"the first model", []string{msg("m1", "claude-opus-4-7"), msg("m2", "claude-haiku-4-5")}, "claude-opus-4-7"},
		{"synthetic first", []string{msg("m1", "<synthetic>"), msg("m2", "claude-sonnet-4-5")}, "claude-sonnet-4-5"},
		{"only synthetic", []string{msg("m1", "<synthetic>")}, ""},
	} {
		p, err := NewParser(FormatClaudeStream)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range tc.lines {
			p.Line([]byte(l))
		}
		if got := p.Result().Usage.Model; got != tc.want {
			t.Errorf("%s: model %q, want %q", tc.name, got, tc.want)
		}
	}
}
