package tasks

import (
	"errors"
	"fmt"
	"strings"
)

// Validate checks a task list as a graph: ids present and unique, every
// dependency known, no task depending on itself, no cycle (the cycle is named).
// Every problem found is reported, each at the task's position.
func Validate(ts []Task) error {
	var errs []error
	byID := make(map[string]int, len(ts))
	for i, t := range ts {
		if t.ID == "" {
			errs = append(errs, errAt(t.Pos, "task without an id"))
			continue
		}
		if j, dup := byID[t.ID]; dup {
			errs = append(errs, errAt(t.Pos, "task id %q is used twice (first at %s): ids must be unique", t.ID, ts[j].Pos))
			continue
		}
		byID[t.ID] = i
	}
	for _, t := range ts {
		for _, d := range t.DependsOn {
			switch _, ok := byID[d]; {
			case d == t.ID:
				errs = append(errs, errAt(t.Pos, "task %s depends on itself", t.ID))
			case !ok:
				errs = append(errs, errAt(t.Pos, "task %s depends on unknown task %q%s", t.ID, d, suggest(d, byID)))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if c := findCycle(ts, byID); c != nil {
		return errAt(ts[byID[c[0]]].Pos, "dependency cycle: %s", strings.Join(c, " → "))
	}
	return nil
}

// findCycle returns one cycle as a path of ids that starts and ends with the same
// id, or nil. Tasks are visited in file order, so the answer is deterministic.
func findCycle(ts []Task, byID map[string]int) []string {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(ts))
	var stack []string
	var cycle []string
	var visit func(i int) bool
	visit = func(i int) bool {
		color[i] = grey
		stack = append(stack, ts[i].ID)
		for _, d := range ts[i].DependsOn {
			j, ok := byID[d]
			if !ok {
				continue
			}
			switch color[j] {
			case grey:
				for k, id := range stack {
					if id == d {
						cycle = append(append([]string{}, stack[k:]...), d)
						return true
					}
				}
			case white:
				if visit(j) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
		return false
	}
	for i := range ts {
		if color[i] == white && visit(i) {
			return cycle
		}
	}
	return nil
}

// suggest names a known id close to an unknown one.
func suggest(id string, known map[string]int) string {
	best, bestD := "", 3
	for k := range known {
		if d := editDistance(id, k); d < bestD || (d == bestD && best != "" && k < best) {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
