package gate

import (
	"slices"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Delta is how one set of failures changed since the previous iteration.
type Delta struct {
	New, Fixed, Still []string       // failure keys, sorted
	Streak            map[string]int // key → consecutive iterations failing, this one included
}

// Compare tells new, fixed and still-failing keys apart. history holds the
// failure keys of the earlier iterations, oldest first (the last is the previous
// iteration); cur holds this iteration's. A key's Streak counts the consecutive
// iterations, ending with this one, in which it failed. It is the one comparison
// of failures between iterations: the feedback, the escalation report and the
// decision's detectors all use it.
func Compare(history [][]string, cur []string) Delta {
	var prev []string
	if len(history) > 0 {
		prev = history[len(history)-1]
	}
	d := Delta{Streak: map[string]int{}}
	seen := map[string]bool{}
	for _, k := range cur {
		if seen[k] {
			continue
		}
		seen[k] = true
		n := 1
		for i := len(history) - 1; i >= 0 && slices.Contains(history[i], k); i-- {
			n++
		}
		d.Streak[k] = n
		if n > 1 {
			d.Still = append(d.Still, k)
		} else {
			d.New = append(d.New, k)
		}
	}
	for _, k := range prev {
		if !seen[k] && !slices.Contains(d.Fixed, k) {
			d.Fixed = append(d.Fixed, k)
		}
	}
	slices.Sort(d.New)
	slices.Sort(d.Fixed)
	slices.Sort(d.Still)
	return d
}

// Deltas compares each gate's failures (the agent's and those the baseline
// already had) with the same gate's in the earlier iterations: history holds,
// per earlier iteration (oldest first), the failure keys of each gate by name;
// without history there is no delta.
func Deltas(results []evidence.GateResult, history []map[string][]string) map[string]Delta {
	if len(history) == 0 {
		return nil // nothing to compare with
	}
	out := map[string]Delta{}
	for _, r := range results {
		var cur []string
		for _, fs := range [][]evidence.Finding{r.Findings, r.Preexisting} {
			for _, f := range fs {
				cur = append(cur, Key(f))
			}
		}
		var h [][]string
		for _, it := range history {
			h = append(h, it[r.Name])
		}
		out[r.Name] = Compare(h, cur)
	}
	return out
}

// maxStreak is the longest streak among still-failing keys.
func (d Delta) maxStreak() int {
	m := 0
	for _, k := range d.Still {
		m = max(m, d.Streak[k])
	}
	return m
}
