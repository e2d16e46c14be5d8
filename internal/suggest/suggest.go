// Package suggest finds the known name closest to a mistyped one, for "did you
// mean" hints in error messages (configuration keys, task ids).
package suggest

import "strings"

// Closest returns the candidate within edit distance 2 of s (the smallest
// distance, ties broken by the lexically smaller name); failing that, the one
// candidate that s, at least 4 bytes long, begins (claude-stream for
// claude-stream-json); else "".
func Closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := Distance(s, c); d < bestD || (d == bestD && best != "" && c < best) {
			best, bestD = c, d
		}
	}
	if best != "" || len(s) < 4 {
		return best
	}
	for _, c := range candidates {
		if strings.HasPrefix(c, s) {
			if best != "" {
				return ""
			}
			best = c
		}
	}
	return best
}

// Distance is the Levenshtein distance between two short names; names longer
// than 64 bytes are never close.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
