package gate

import "sort"

// Delta is how one gate's failures changed since the previous iteration.
type Delta struct {
	New, Fixed, Still []string       // failure keys, sorted
	Streak            map[string]int // key → consecutive iterations failing, this one included
}

// Compare tells new, fixed and still-failing keys apart; prevStreak holds, per key,
// for how many consecutive iterations up to the previous one it failed.
func Compare(prevKeys, curKeys []string, prevStreak map[string]int) Delta {
	prev := map[string]bool{}
	for _, k := range prevKeys {
		prev[k] = true
	}
	cur := map[string]bool{}
	d := Delta{Streak: map[string]int{}}
	for _, k := range curKeys {
		if cur[k] {
			continue
		}
		cur[k] = true
		if prev[k] {
			d.Still = append(d.Still, k)
			d.Streak[k] = max(prevStreak[k], 1) + 1
		} else {
			d.New = append(d.New, k)
			d.Streak[k] = 1
		}
	}
	for k := range prev {
		if !cur[k] {
			d.Fixed = append(d.Fixed, k)
		}
	}
	sort.Strings(d.New)
	sort.Strings(d.Fixed)
	sort.Strings(d.Still)
	return d
}

// maxStreak is the longest streak among still-failing keys.
func (d Delta) maxStreak() int {
	m := 0
	for _, k := range d.Still {
		m = max(m, d.Streak[k])
	}
	return m
}
