package tasks

import "fmt"

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

// Task returns the task with the id.
func (g Graph) Task(id string) (Task, bool) {
	i, ok := g.index[id]
	if !ok {
		return Task{}, false
	}
	return g.Tasks[i], true
}

// Dependents returns, for each task id, the ids of the tasks that depend on it.
func (g Graph) Dependents() map[string][]string {
	out := make(map[string][]string, len(g.Tasks))
	for _, t := range g.Tasks {
		for _, d := range t.DependsOn {
			out[d] = append(out[d], t.ID)
		}
	}
	return out
}

// Order returns the tasks in layers: layer 0 depends on nothing, layer k only on
// earlier layers, each layer in file order. It fails on an invalid graph.
func Order(ts []Task) ([][]string, error) {
	if err := Validate(ts); err != nil {
		return nil, fmt.Errorf("order tasks: %w", err)
	}
	layer := make(map[string]int, len(ts))
	remaining := len(ts)
	var layers [][]string
	for remaining > 0 {
		var this []string
		for _, t := range ts {
			if _, done := layer[t.ID]; done {
				continue
			}
			ready := true
			for _, d := range t.DependsOn {
				if _, ok := layer[d]; !ok {
					ready = false
					break
				}
			}
			if ready {
				this = append(this, t.ID)
			}
		}
		if len(this) == 0 { // cannot happen after Validate; guard against a loop
			return nil, fmt.Errorf("order tasks: no task is ready among %d left", remaining)
		}
		for _, id := range this {
			layer[id] = len(layers)
		}
		remaining -= len(this)
		layers = append(layers, this)
	}
	return layers, nil
}
