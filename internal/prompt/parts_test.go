package prompt

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPartContent(t *testing.T) {
	t.Parallel()
	read := func(path string) ([]byte, error) {
		if path == "review.md" {
			return []byte("from the file"), nil
		}
		return nil, errors.New("no such file")
	}
	for _, tt := range []struct {
		part    Part
		want    string
		wantErr bool
	}{
		{Part{Text: "inline"}, "inline", false},
		{Part{File: "review.md", Text: "ignored"}, "from the file", false},
		{Part{File: "missing.md"}, "", true},
	} {
		got, err := tt.part.Content(read)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("Content(%+v) = %q, %v", tt.part, got, err)
		}
	}
	b, err := Part{File: BuiltinPrefix + "build/act.md"}.Content(read)
	if err != nil || b == "" {
		t.Errorf("built-in part: %q, %v", b, err)
	}
}

// A part is named by its file or its first line of text, at most 60 bytes
// cut at a rune, with an ellipsis when anything is left out.
func TestPartString(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 61)
	wide := strings.Repeat("é", 40) // 80 bytes: byte 57 falls inside an é
	for _, tt := range []struct {
		part Part
		want string
	}{
		{Part{File: "act.md", Text: "ignored"}, "act.md"},
		{Part{}, ""},
		{Part{Text: "Do it."}, "text: Do it."},
		{Part{Text: "Do it.\nThen check."}, "text: Do it.…"},
		{Part{Text: long[:60]}, "text: " + long[:60]},
		{Part{Text: long}, "text: " + long[:57] + "…"},
		{Part{Text: wide}, "text: " + wide[:56] + "…"},
	} {
		if got := tt.part.String(); got != tt.want || !utf8.ValidString(got) {
			t.Errorf("String(%+v) = %q, want %q", tt.part, got, tt.want)
		}
	}
}
