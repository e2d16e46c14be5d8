package redact

import (
	"slices"
	"strings"
	"testing"
)

// naive finds every occurrence of every word, in any ASCII case.
func naive(words []string, text string) []hit {
	low := asciiLower([]byte(text)) // strings.ToLower would turn bytes of bad UTF-8 into three
	var out []hit
	for end := 1; end <= len(low); end++ {
		for w, word := range words {
			if end >= len(word) && low[end-len(word):end] == word {
				out = append(out, hit{int32(w), int32(end)})
			}
		}
	}
	return out
}

func sortHits(h []hit) []hit {
	h = slices.Clone(h)
	slices.SortFunc(h, func(a, b hit) int {
		if a.end != b.end {
			return int(a.end - b.end)
		}
		return int(a.word - b.word)
	})
	return h
}

// FuzzKeywords checks the automaton, over the four parts it scans at once,
// against a plain search.
func FuzzKeywords(f *testing.F) {
	f.Add("token ghp_ and -----BEGIN\nsk-ant- api_key\n", 3)
	f.Add(strings.Repeat("the key is here\nAPI TOKEN\n", 80), 50)
	words := []string{"key", "token", "ghp_", "-----begin", "sk-", "sk-ant-", "api", "ey", "s.", "a", "e\n"[:1]}
	k := newKeywords(words)
	spare := new([scanWays - 1][]hit) // reused, as a writer does
	f.Fuzz(func(t *testing.T, text string, repeat int) {
		if repeat > 0 && repeat < 100 {
			text = strings.Repeat(text+"\n", repeat)
		}
		got := k.scan([]byte(text), nil, spare)
		if want := naive(words, text); !slices.Equal(sortHits(got), want) {
			t.Fatalf("scan found %v, want %v", sortHits(got), want)
		}
		for i := 1; i < len(got); i++ {
			if got[i].end < got[i-1].end {
				t.Fatalf("hits out of order: %v", got)
			}
		}
	})
}
