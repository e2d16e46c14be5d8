package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding is the BPE vocabulary [Count] uses. It is embedded in the
// binary (no network); Claude's own tokenizer is not public, and cl100k_base
// counts English and code within a few percent of it.
const Encoding = tokenizer.Cl100kBase

// codec is built once, on first use (its vocabulary takes ~100 ms to load).
var codec = sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(Encoding) })

// Count returns the number of tokens s encodes to in [Encoding]. Special
// tokens in s (such as <|endoftext|>) are counted as plain text.
func Count(s string) int {
	c, err := codec()
	if err != nil {
		return len(s) / 4 // unreachable with an embedded encoding; a rough estimate
	}
	n, err := c.Count(s)
	if err != nil {
		return len(s) / 4
	}
	return n
}
