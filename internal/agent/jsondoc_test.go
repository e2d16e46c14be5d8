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
