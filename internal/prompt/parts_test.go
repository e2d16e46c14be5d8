package prompt

import (
	"errors"
	"testing"
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
