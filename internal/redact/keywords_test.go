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
	f.Add(strings.Repeat("a token-----BEGIN key sk-ant-api ", 200), 0) // one long line, cut inside words
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

// TestScanPartsCutAnywhere checks where the scan cuts a text into its four
// parts: a long line without a newline is scanned in four parts like lines are
// (a flood without newlines was read a byte at a time in one part, at a third
// of the speed), each part after the first starting the longest word before
// its cut; a text too short for that is scanned whole.
func TestScanPartsCutAnywhere(t *testing.T) {
	t.Parallel()
	k := newKeywords([]string{"key", "-----begin", "token"}) // the longest: 10
	for _, c := range []struct {
		n         int
		ok        bool
		from, cut [scanWays + 1]int
	}{
		{n: 100},
		{n: 1023},
		{n: 1024, ok: true, from: [5]int{0, 246, 502, 758, 1024}, cut: [5]int{0, 256, 512, 768, 1024}},
		{n: 256 << 10, ok: true, from: [5]int{0, 65526, 131062, 196598, 262144}, cut: [5]int{0, 65536, 131072, 196608, 262144}},
	} {
		from, cut, ok := k.parts(c.n)
		if ok != c.ok || ok && (from != c.from || cut != c.cut) {
			t.Errorf("parts(%d) = %v, %v, %v; want %v, %v, %v", c.n, from, cut, ok, c.from, c.cut, c.ok)
		}
	}
	long := newKeywords([]string{strings.Repeat("x", 300)}) // a secret value this long: 4 parts need 4,800 bytes
	if _, _, ok := long.parts(4799); ok {
		t.Error("parts cuts a text too short for its longest word's run-up")
	}
	if _, _, ok := long.parts(4800); !ok {
		t.Error("parts does not cut a text long enough")
	}
}

// TestKeywordsOfTheCatalog: the automaton of the catalog's words finds what a
// plain search finds in a text of them all, and its build allocates a few
// tables and lists of the words a state ends, not a map a state: the catalog is built at
// each start of a run that redacts anything (with a map a state, its 1,311
// states cost 1.9 ms and 3,300 allocations a start).
func TestKeywordsOfTheCatalog(t *testing.T) {
	words := rules().words.words
	var text strings.Builder
	for i, w := range words {
		text.WriteString(w[:len(w)/2] + " " + strings.ToUpper(w) + w[len(w)/2:])
		text.WriteByte(" \n="[i%3])
	}
	k := newKeywords(words)
	if got, want := sortHits(k.scan([]byte(text.String()), nil, new([scanWays - 1][]hit))), naive(words, text.String()); !slices.Equal(got, want) {
		t.Fatalf("scan found %d hits, a plain search %d", len(got), len(want))
	}
	if got := len(k.next) / k.nclass; got != trieStates(words) {
		t.Errorf("the automaton has %d states, trieStates counts %d (its table is sized by it)", got, trieStates(words))
	}
	if raceOn {
		return
	}
	if n := testing.AllocsPerRun(3, func() { newKeywords(words) }); n > float64(2*len(words)) {
		t.Errorf("building the automaton of %d words: %.0f allocations, want at most %d", len(words), n, 2*len(words))
	}
}
