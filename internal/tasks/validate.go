package tasks

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/suggest"
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
				errs = append(errs, errAt(t.Pos, "task %s depends on unknown task %q%s", t.ID, d, didYouMean(d, t.ID, byID)))
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

// didYouMean names a known id close to an unknown one, other than the id of
// the task that names it (a task cannot depend on itself).
func didYouMean(id, self string, known map[string]int) string {
	ids := slices.DeleteFunc(slices.Collect(maps.Keys(known)), func(k string) bool { return k == self })
	best := suggest.Closest(id, ids)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
