package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// Waiting lists the records of the runs and graph tasks of the state folder
// that wait for a person, oldest first: each run's current needs_you (see
// [state.NeedsYouNow]; of a running loop, only its parking by a soft limit), an escalation of an older build from its escalation.yaml,
// and each graph task whose merge conflicted. A run or graph whose files
// cannot be read is left out and named in the error.
func Waiting(stateDir string) ([]decision.Waiting, error) {
	store := state.Store{Root: stateDir}
	states, listErr := store.List()
	var items []decision.Waiting
	var errs []error
	if listErr != nil {
		errs = append(errs, listErr)
	}
	for _, st := range states {
		if st.Status != state.StatusEscalated && st.Status != state.StatusAborted && st.Status != state.StatusRunning {
			continue
		}
		dir := store.RunDir(st.Name, st.RunID)
		rec, since, ok := state.NeedsYouNow(readEvents(filepath.Join(dir, "events.jsonl")))
		if st.Status == state.StatusRunning && rec.Kind != decision.NeedsBudget {
			// A running loop waits for a person only when a shared cap's soft
			// limit parked it before its next iteration.
			continue
		}
		if !ok && st.Status == state.StatusEscalated {
			rec, ok = oldEscalation(dir, st.Name)
			since = st.LastIterationAt
		}
		if ok {
			items = append(items, decision.Waiting{NeedsYou: rec, Since: since, RunID: st.RunID, Engine: "local"})
		}
	}
	graphs, _ := filepath.Glob(filepath.Join(stateDir, "graphs", "*.json"))
	for _, path := range graphs {
		more, err := graphWaiting(store, path, items)
		if err != nil {
			errs = append(errs, err)
		}
		items = more
	}
	decision.SortWaiting(items)
	return items, errors.Join(errs...)
}

// graphWaiting adds to items the graph's tasks whose work could not be
// merged back, and names the graph and task of the items that are its
// tasks' runs.
func graphWaiting(store state.Store, path string, items []decision.Waiting) ([]decision.Waiting, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return items, fmt.Errorf("read task graph state: %w", err)
	}
	var g graph.State
	if err := json.Unmarshal(b, &g); err != nil {
		return items, fmt.Errorf("task graph state %s: %w", path, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".json")
	c := graph.Commands{TaskFile: relTo(g.Repo, g.File)}
	for _, id := range slices.Sorted(maps.Keys(g.Outcomes)) {
		o := g.Outcomes[id]
		run := tasks.TaskRunName(name, id)
		if i := slices.IndexFunc(items, func(it decision.Waiting) bool { return it.Run == run }); i >= 0 {
			items[i].Graph, items[i].Task = name, id
			continue
		}
		if o.Unmerged == "" || slices.Contains(g.Merged, id) {
			continue
		}
		it := decision.Waiting{Engine: "local"}
		if st, err := store.Load(run); err == nil {
			it.RunID = st.RunID
			rec, since, ok := state.NeedsYouNow(readEvents(filepath.Join(store.RunDir(run, st.RunID), "events.jsonl")))
			if ok && rec.Kind == decision.NeedsMerge {
				it.NeedsYou, it.Since = rec, since
			}
		}
		if it.Kind == "" {
			u := graph.ListUnfinished(name, []tasks.Task{{ID: id}}, g.Outcomes, g.Merged, c)
			if len(u) == 0 {
				continue
			}
			it.NeedsYou = graph.Unmerged(name, u[0], c)
			if fi, err := os.Stat(path); err == nil {
				it.Since = fi.ModTime()
			}
		}
		items = append(items, it)
	}
	return items, nil
}

// readEvents reads a run's events; an event log that cannot be read has none.
func readEvents(path string) []state.Event {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	evs, _, _ := report.ReadEvents(f)
	return evs
}

// oldEscalation is the record of an escalation kept before its needs_you was
// an event: its last report's (escalation-NNN.yaml, or an older build's
// escalation.yaml).
func oldEscalation(dir, name string) (decision.NeedsYou, bool) {
	path := filepath.Join(dir, "escalation.yaml")
	if all, _ := filepath.Glob(filepath.Join(dir, "escalation-*.yaml")); len(all) > 0 {
		path = all[len(all)-1]
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return decision.NeedsYou{}, false
	}
	var rep decision.EscalationReport
	if err := yaml.Unmarshal(b, &rep); err != nil {
		return decision.NeedsYou{}, false
	}
	if rep.Run == "" {
		rep.Run = name
	}
	rec := rep.NeedsYou()
	rec.Report = strings.TrimSuffix(path, ".yaml") + ".md"
	return rec, true
}
