package redact

import "slices"

// keywords finds many words at once, case-insensitively (ASCII), in one pass
// over the text: an Aho-Corasick automaton turned into a table of transitions
// over the classes of bytes the words use. A byte no word has sends every
// state back to the root, so the text costs one table lookup per byte, however
// many words there are.
type keywords struct {
	words   []string
	longest int        // the longest word's length
	class   [256]uint8 // byte → class (0: in no word)
	nclass  int
	next    []uint32 // state*nclass+class → next state * nclass
	outFrom uint32   // states ≥ outFrom (times nclass) end a word
	out     [][]int  // (state - outFrom) → indexes of the words ending there
}

// newKeywords builds the automaton of words (lower case ASCII).
func newKeywords(words []string) *keywords {
	k := &keywords{words: words}
	for _, w := range words {
		k.longest = max(k.longest, len(w))
		for i := 0; i < len(w); i++ {
			c := w[i]
			if k.class[c] == 0 {
				k.nclass++
				k.class[c] = uint8(k.nclass)
				if c >= 'a' && c <= 'z' {
					k.class[c-'a'+'A'] = k.class[c]
				}
			}
		}
	}
	k.nclass++ // class 0
	// The trie, as a table: trans[n*nclass+c] is n's child by class c, 0 for
	// none (the root is no one's child); then, breadth first, the failure
	// links fill in the transitions it lacks. One table, not a map a node:
	// the catalog is built at each start of a run that redacts anything.
	nc := k.nclass
	trans := make([]int32, nc, trieStates(words)*nc)
	var outs [][]int // state → the words ending there
	for wi, w := range words {
		n := 0
		for i := 0; i < len(w); i++ {
			at := n*nc + int(k.class[w[i]])
			if trans[at] == 0 {
				trans[at] = int32(len(trans) / nc)
				trans = append(trans, make([]int32, nc)...)
			}
			n = int(trans[at])
		}
		for len(outs) <= n {
			outs = append(outs, nil)
		}
		outs[n] = append(outs[n], wi)
	}
	states := len(trans) / nc
	for len(outs) < states {
		outs = append(outs, nil)
	}
	fail := make([]int32, states)
	queue := make([]int32, 0, states)
	for c := 0; c < nc; c++ {
		if ch := trans[c]; ch != 0 {
			queue = append(queue, ch) // the root's children fail to the root
		}
	}
	for len(queue) > 0 {
		n := int(queue[0])
		queue = queue[1:]
		f := int(fail[n])
		outs[n] = append(outs[n], outs[f]...)
		for c := 0; c < nc; c++ {
			if ch := trans[n*nc+c]; ch != 0 {
				fail[ch] = trans[f*nc+c]
				queue = append(queue, ch)
			} else {
				trans[n*nc+c] = trans[f*nc+c]
			}
		}
	}
	// Number the states that end a word last, so that one comparison per byte
	// tells whether one ended.
	order := make([]int, states) // old → new
	next := 0
	for pass := 0; pass < 2; pass++ {
		for i := range states {
			if (len(outs[i]) > 0) == (pass == 1) {
				order[i] = next
				next++
			}
		}
	}
	k.next = make([]uint32, len(trans))
	k.out = make([][]int, 0)
	k.outFrom = uint32(states)
	for i := range states {
		if len(outs[i]) > 0 && uint32(order[i]) < k.outFrom {
			k.outFrom = uint32(order[i])
		}
	}
	k.out = make([][]int, states-int(k.outFrom))
	for i := range states {
		for c := 0; c < k.nclass; c++ {
			k.next[order[i]*k.nclass+c] = uint32(order[trans[i*k.nclass+c]] * k.nclass)
		}
		if len(outs[i]) > 0 {
			k.out[uint32(order[i])-k.outFrom] = outs[i]
		}
	}
	k.outFrom *= uint32(k.nclass)
	return k
}

// hit is a word found: its index and the position just past it.
type hit struct{ word, end int32 }

// scanWays is how many parts of a text [keywords.scan] runs over at once.
const scanWays = 4

// scan appends the words of the automaton found in b, by position. It runs
// the automaton over four parts of b at once, so that the table lookups of one
// part overlap those of the others. The parts are cut anywhere, a line of
// text without a newline too: each part after the first starts from the root
// the longest word's length before its cut, where the state it reaches by the
// cut is the state a scan from the start would have, and keeps the words that
// end past the cut (the part before it found the others).
// The hits of the parts after the first are gathered in spare, whose slices
// are kept for the next call (a call per chunk of output must not allocate).
func (k *keywords) scan(b []byte, hits []hit, spare *[scanWays - 1][]hit) []hit {
	const ways = scanWays
	from, cut, ok := k.parts(len(b))
	if !ok {
		return k.scanFrom(b, 0, 0, 0, hits)
	}
	n := len(b)
	for w := range ways {
		n = min(n, cut[w+1]-from[w])
	}
	next, class, outFrom := k.next, &k.class, k.outFrom
	var st [ways]uint32
	var found [ways][]hit // the first part's go straight to hits
	found[0] = hits
	for w := 1; w < ways; w++ {
		found[w] = spare[w-1][:0]
	}
	p0, p1, p2, p3 := b[from[0]:cut[1]], b[from[1]:cut[2]], b[from[2]:cut[3]], b[from[3]:cut[4]]
	p0, p1, p2, p3 = p0[:n], p1[:n], p2[:n], p3[:n]
	for i := 0; i < n; i++ {
		st[0] = next[st[0]+uint32(class[p0[i]])]
		st[1] = next[st[1]+uint32(class[p1[i]])]
		st[2] = next[st[2]+uint32(class[p2[i]])]
		st[3] = next[st[3]+uint32(class[p3[i]])]
		if st[0] >= outFrom || st[1] >= outFrom || st[2] >= outFrom || st[3] >= outFrom {
			for w := range ways {
				found[w] = k.emit(st[w], from[w]+i, found[w])
			}
		}
	}
	hits = found[0]
	for w := range ways {
		if w > 0 {
			f := found[w]
			i := 0
			for i < len(f) && int(f[i].end) <= cut[w] {
				i++ // found by the part before
			}
			hits = append(hits, f[i:]...)
			spare[w-1] = f
		}
		hits = k.scanFrom(b[from[w]:cut[w+1]], n, st[w], from[w], hits)
	}
	return hits
}

// parts returns where [keywords.scan] cuts a text of n bytes, each part w
// scanned from from[w] to cut[w+1], and whether n is long enough to cut: a
// part's start before its cut must be after the part before's start.
func (k *keywords) parts(n int) (from, cut [scanWays + 1]int, ok bool) {
	if n < 1024 || n < 4*scanWays*k.longest {
		return from, cut, false
	}
	for w := 1; w < scanWays; w++ {
		cut[w] = n * w / scanWays
		from[w] = cut[w] - k.longest
	}
	cut[scanWays], from[scanWays] = n, n
	return from, cut, true
}

// emit appends the words that end at state st, at position at.
func (k *keywords) emit(st uint32, at int, hits []hit) []hit {
	if st >= k.outFrom {
		for _, w := range k.out[(st-k.outFrom)/uint32(k.nclass)] {
			hits = append(hits, hit{int32(w), int32(at + 1)})
		}
	}
	return hits
}

// scanFrom scans b[from:] from state st; b is at off in the text.
func (k *keywords) scanFrom(b []byte, from int, st uint32, off int, hits []hit) []hit {
	next, class, outFrom, nclass := k.next, &k.class, k.outFrom, uint32(k.nclass)
	for i := from; i < len(b); i++ {
		st = next[st+uint32(class[b[i]])]
		if st >= outFrom {
			for _, w := range k.out[(st-outFrom)/nclass] {
				hits = append(hits, hit{int32(w), int32(off + i + 1)})
			}
		}
	}
	return hits
}

// any reports whether one of the words is in b.
func (k *keywords) any(b []byte) bool {
	next, class, outFrom := k.next, &k.class, k.outFrom
	st := uint32(0)
	for i := 0; i < len(b); i++ {
		st = next[st+uint32(class[b[i]])]
		if st >= outFrom {
			return true
		}
	}
	return false
}

// trieStates is the number of states of the trie of words: the root and one
// a distinct prefix (words are lower case: one class string a byte string).
func trieStates(words []string) int {
	sorted := slices.Clone(words)
	slices.Sort(sorted)
	n, prev := 1, ""
	for _, w := range sorted {
		common := 0
		for common < min(len(w), len(prev)) && w[common] == prev[common] {
			common++
		}
		n += len(w) - common
		prev = w
	}
	return n
}
