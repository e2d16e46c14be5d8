package tokens

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tiktoken-go/tokenizer"
)

func TestCountTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		// OpenAI's cookbook example: [83, 1609, 5963, 374, 2294, 0] in cl100k_base.
		{"tiktoken is great!", 6},
		{"hello world", 2},                     // [15339, 1917]
		{strings.Repeat(" hello", 1000), 1000}, // " hello" is one token (24748)
	}
	for _, tt := range tests {
		if got := Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	c, err := tokenizer.Get(Encoding)
	if err != nil {
		t.Fatal(err)
	}
	ids, _, err := c.Encode("tiktoken is great!")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint{83, 1609, 5963, 374, 2294, 0}, ids); diff != "" {
		t.Errorf("encoding is not cl100k_base (-want +got):\n%s", diff)
	}
}
