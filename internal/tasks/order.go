package tasks

import (
	"fmt"
	"slices"
)

// Graph is a validated set of tasks; build it with [NewGraph].
type Graph struct {
	Tasks []Task
	index map[string]int
}

// NewGraph validates the tasks as a graph (see [Validate]).
func NewGraph(ts []Task) (Graph, error) {
	if err := Validate(ts); err != nil {
		return Graph{}, err
	}
	g := Graph{Tasks: ts, index: make(map[string]int, len(ts))}
	for i, t := range ts {
		g.index[t.ID] = i
	}
	return g, nil
}

// Order returns the tasks in layers: layer 0 depends on nothing, layer k only on
// earlier layers, each layer in file order. It fails on an invalid graph.
func Order(ts []Task) ([][]string, error) {
	if err := Validate(ts); err != nil {
		return nil, fmt.Errorf("order tasks: %w", err)
	}
	index := make(map[string]int, len(ts))
	for i, t := range ts {
		index[t.ID] = i
	}
	waiting := make([]int, len(ts))
	dependents := make([][]int, len(ts))
	var this []int
	for i, t := range ts {
		waiting[i] = len(t.DependsOn)
		for _, d := range t.DependsOn {
			dependents[index[d]] = append(dependents[index[d]], i)
		}
		if waiting[i] == 0 {
			this = append(this, i)
		}
	}
	var layers [][]string
	placed := 0
	for len(this) > 0 {
		ids := make([]string, len(this))
		var next []int
		for k, i := range this {
			ids[k] = ts[i].ID
			for _, d := range dependents[i] {
				if waiting[d]--; waiting[d] == 0 {
					next = append(next, d)
				}
			}
		}
		slices.Sort(next)
		placed += len(this)
		layers = append(layers, ids)
		this = next
	}
	if placed != len(ts) { // cannot happen after Validate
		return nil, fmt.Errorf("order tasks: %d tasks are never ready", len(ts)-placed)
	}
	return layers, nil
}
