package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/runname"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// CleanOptions say what `agentloop clean` may remove.
type CleanOptions struct {
	StateDir string   // the state folder, absolute
	Repo     string   // the work tree; checkpoints, worktrees and branches are left alone when it is not a git repository
	Names    []string // runs or task graphs asked for by name: removed even when they could be resumed
	All      bool     // every run that could be resumed too (escalated, interrupted, crashed)
	// Engine are the runs another engine holds (Temporal: its workflows),
	// which have no state file here: their folders, checkpoints, worktrees
	// and branches in this clone are planned by how they stand there, as a
	// local run's by its state.
	Engine []state.EngineRun
	// EngineAsked says Engine is what the other engine's server answered.
	// Without it, the runs the state folder marks as another engine's
	// ([state.Store.MarkEngine]) and that have no state here are left
	// alone whole, named, since they may go on there.
	EngineAsked bool
	// Remote is the git remote the clones share ("" for none): its
	// checkpoint refs are planned as the clone's own are.
	Remote string
}

// CleanItem is one thing clean removes or keeps.
type CleanItem struct {
	Kind string // run, run folder, checkpoints, worktree, branch, graph
	Name string // as a person names it: the run, a path relative to the work tree, a ref or a branch
	Note string // why it is removed or kept

	run    string   // the run whose lock is held while it is removed
	paths  []string // files and folders removed
	refs   []string // refs deleted
	branch string
	remote string // the remote whose refs are deleted, "" for the clone's
	force  bool   // an unmerged branch, a worktree with changes
}

// CleanPlan is what clean would remove and what it keeps, and why.
type CleanPlan struct {
	Remove, Keep []CleanItem
	store        state.Store
	repo         string // "" when not a git repository
}

// runFate is what becomes of one run.
type runFate int

const (
	fateRemove runFate = iota
	fateKeep           // it may be resumed: only its old run folders go
	fateLive           // a live process owns it: nothing of it is touched
)

// PlanClean lists what clean removes: runs that ended (succeeded, completed,
// aborted) with their folders, checkpoints, task worktrees and merged task
// branches; the folders and checkpoints of runs that no longer exist or were
// replaced by a newer run of the same name; a task graph's state once none of
// its tasks' runs is left. A run a live process owns is never touched; one that
// may be resumed is kept unless o.All or it is named. Nothing is removed here.
func PlanClean(ctx context.Context, o CleanOptions) (*CleanPlan, error) {
	p := &CleanPlan{store: state.Store{Root: o.StateDir}}
	if o.Repo != "" && gitx.IsRepo(ctx, o.Repo) {
		p.repo = o.Repo
	}
	states, listErr := p.store.List()
	graphs := graphNames(o.StateDir)
	var marked map[string]string
	if !o.EngineAsked {
		marked, _ = p.store.Engines()
	}
	records := issueRecords(o.StateDir)
	for _, n := range o.Names {
		if err := runname.Check(n); err != nil {
			return nil, err
		}
		_, theirs := marked[n]
		_, recorded := records[n]
		found := recorded || slices.Contains(graphs, n) || slices.ContainsFunc(states, func(s *state.State) bool { return s.Name == n }) ||
			slices.ContainsFunc(o.Engine, func(r state.EngineRun) bool { return r.Name == n }) || theirs
		if !found {
			return nil, fmt.Errorf("no run or task graph named %q in %s; 'agentloop status' lists them", n, o.StateDir)
		}
	}
	named := func(run string) bool {
		return slices.ContainsFunc(o.Names, func(n string) bool {
			return n == run || (slices.Contains(graphs, n) && strings.HasPrefix(run, n+"-"))
		})
	}
	fate := map[string]runFate{}
	current := map[string]map[string]bool{} // run name → its run ids (more than one: of engine runs of the same name)
	for _, st := range states {
		current[st.Name] = map[string]bool{st.RunID: true}
		switch {
		case p.store.Owned(st.Name):
			fate[st.Name] = fateLive
			p.Keep = append(p.Keep, CleanItem{Kind: "run", Name: st.Name, Note: "running: a live process owns it"})
		case prOpen(st.Issue):
			fate[st.Name] = fateKeep
			p.Keep = append(p.Keep, CleanItem{Kind: "run", Name: st.Name, Note: ownsPR(st.Issue)})
		case resumable(st.Status) && !o.All && !named(st.Name):
			fate[st.Name] = fateKeep
			p.Keep = append(p.Keep, CleanItem{Kind: "run", Name: st.Name, Note: fmt.Sprintf(
				"%s and may be resumed ('agentloop resume %s'); 'agentloop clean --force %s' or --all removes it", statusWord(st.Status), st.Name, st.Name)})
		default:
			fate[st.Name] = fateRemove
			p.Remove = append(p.Remove, CleanItem{Kind: "run", Name: st.Name, Note: statusWord(st.Status), run: st.Name,
				paths: []string{p.store.StatePath(st.Name), filepath.Join(p.store.StateDir(), st.Name+".lock"), p.store.LivePath(st.Name), p.store.QueueDir(st.Name), filepath.Join(o.StateDir, "runs", st.Name)}})
		}
	}
	p.planEngine(o, fate, current, named, records)
	p.planMarked(marked, fate)
	p.planIssues(o, fate, records)
	p.planRunFolders(o.StateDir, fate, current)
	if p.repo != "" {
		refs, err := gitx.Refs(ctx, p.repo, "refs/agentloop/")
		if err != nil {
			return nil, err
		}
		p.planRefs(refs, "", fate, current)
	}
	if p.repo != "" && o.Remote != "" {
		refs, err := gitx.RemoteRefs(ctx, p.repo, o.Remote, "refs/agentloop/")
		if err != nil {
			return nil, err
		}
		p.planRefs(refs, o.Remote, fate, current)
	}
	if err := p.planTasks(ctx, o, graphs, fate, named); err != nil {
		return nil, err
	}
	if listErr != nil {
		return p, fmt.Errorf("some state files could not be read and their runs are left alone: %w", listErr)
	}
	return p, nil
}

// planEngine adds the fates of the engine's runs that have no state here. A
// name several engine runs have (of other repositories) takes the fate that
// keeps most, and each of their run IDs is current.
func (p *CleanPlan) planEngine(o CleanOptions, fate map[string]runFate, current map[string]map[string]bool, named func(string) bool, records map[string]issueRecord) {
	local := maps.Clone(fate)
	engine := map[string]runFate{}
	status := map[string]state.Status{}
	for _, r := range o.Engine {
		if _, ok := local[r.Name]; ok {
			continue
		}
		f := fateRemove
		switch {
		case r.Live:
			f = fateLive
		case prOpen(records[r.Name].rec), resumable(r.Status) && !o.All && !named(r.Name):
			f = fateKeep
		}
		if old, ok := engine[r.Name]; !ok || f > old {
			engine[r.Name], status[r.Name] = f, r.Status
		}
		if current[r.Name] == nil {
			current[r.Name] = map[string]bool{}
		}
		current[r.Name][r.RunID] = true
	}
	for _, name := range slices.Sorted(maps.Keys(engine)) {
		fate[name] = engine[name]
		switch engine[name] {
		case fateLive:
			p.Keep = append(p.Keep, CleanItem{Kind: "run", Name: name, Note: "running, or waiting for a person, on the engine's server"})
		case fateKeep:
			note := fmt.Sprintf("%s on the engine's server and may be resumed; 'agentloop clean --force %s' or --all removes what it left here", status[name], name)
			if rec := records[name].rec; prOpen(rec) {
				note = ownsPR(rec)
			}
			p.Keep = append(p.Keep, CleanItem{Kind: "run", Name: name, Note: note})
		default:
			if dir := filepath.Join(o.StateDir, "runs", name); exists(dir) {
				p.Remove = append(p.Remove, CleanItem{Kind: "run folder", Name: p.rel(dir), Note: string(status[name]) + " on the engine's server", paths: []string{dir}})
			}
		}
	}
}

// planMarked keeps whole the runs another engine holds (marked, by name:
// the engine), which have no state here, when that engine was not asked how
// they stand: a run waiting or going on there keeps its run folders,
// checkpoints, worktree and branch in this clone.
func (p *CleanPlan) planMarked(marked map[string]string, fate map[string]runFate) {
	for _, name := range slices.Sorted(maps.Keys(marked)) {
		if _, ok := fate[name]; ok {
			continue // its local state says
		}
		fate[name] = fateLive
		e := marked[name]
		p.Keep = append(p.Keep, CleanItem{Kind: "run", Name: name, Note: fmt.Sprintf(
			"a run on %s: whether it goes on there is not known here; 'agentloop clean --engine %s' asks its server", e, e)})
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// resumable says whether a run in this status may still be resumed.
func resumable(s state.Status) bool {
	return s == state.StatusEscalated || s == state.StatusInterrupted || s == state.StatusRunning
}

func statusWord(s state.Status) string {
	if s == state.StatusRunning {
		return "stopped while running (its process is gone)"
	}
	return string(s)
}

// graphNames are the task graphs with a state in the state folder.
func graphNames(stateDir string) []string {
	entries, _ := os.ReadDir(filepath.Join(stateDir, "graphs"))
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && e.Type().IsRegular() && runname.Check(n) == nil {
			names = append(names, n)
		}
	}
	return names
}

// planRunFolders adds the run folders of runs without a state, and those of
// earlier runs of a name that is kept.
func (p *CleanPlan) planRunFolders(stateDir string, fate map[string]runFate, current map[string]map[string]bool) {
	names, _ := os.ReadDir(filepath.Join(stateDir, "runs"))
	for _, n := range names {
		if !n.IsDir() || runname.Check(n.Name()) != nil {
			continue
		}
		f, known := fate[n.Name()]
		dir := filepath.Join(stateDir, "runs", n.Name())
		switch {
		case !known:
			if !p.store.Owned(n.Name()) {
				p.Remove = append(p.Remove, CleanItem{Kind: "run folder", Name: p.rel(dir), Note: "no run of that name is left", run: n.Name(), paths: []string{dir}})
			}
		case f == fateKeep:
			runs, _ := os.ReadDir(dir)
			for _, r := range runs {
				if r.IsDir() && !current[n.Name()][r.Name()] {
					old := filepath.Join(dir, r.Name())
					note := "an earlier run of " + n.Name()
					if state.Stillborn(old) {
						note += ", stopped before it saved its first state"
					}
					p.Remove = append(p.Remove, CleanItem{Kind: "run folder", Name: p.rel(old), Note: note, paths: []string{old}})
				}
			}
		}
	}
}

// planRefs adds the checkpoints (refs/agentloop/NAME/RUN/…) among refs, the
// clone's or those of its remote ("" for the clone's), of runs removed, of
// runs that no longer exist, and of earlier runs of a kept name.
func (p *CleanPlan) planRefs(refs []string, remote string, fate map[string]runFate, current map[string]map[string]bool) {
	type key struct{ name, run string }
	groups := map[key][]string{}
	var order []key
	for _, ref := range refs {
		parts := strings.SplitN(strings.TrimPrefix(ref, "refs/agentloop/"), "/", 3)
		if len(parts) < 2 {
			continue
		}
		k := key{parts[0], parts[1]}
		if f, ok := fate[k.name]; ok && (f == fateLive || (f == fateKeep && current[k.name][k.run])) {
			continue
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], ref)
	}
	for _, k := range order {
		note := "checkpoints of a run that no longer exists"
		switch f, ok := fate[k.name]; {
		case ok && f == fateRemove && current[k.name][k.run]:
			note = "checkpoints of the run removed"
		case ok:
			note = "checkpoints of an earlier run of " + k.name
		}
		it := CleanItem{Kind: "checkpoints", Name: fmt.Sprintf("refs/agentloop/%s/%s/ (%d)", k.name, k.run, len(groups[k])), Note: note, refs: groups[k]}
		if remote != "" {
			it.Kind, it.remote = "checkpoints on "+remote, remote
		}
		p.Remove = append(p.Remove, it)
	}
}

// planTasks adds the worktrees and branches of task graphs whose task run is
// removed or gone, and a graph's state once none of its tasks' runs is left.
func (p *CleanPlan) planTasks(ctx context.Context, o CleanOptions, graphs []string, fate map[string]runFate, named func(string) bool) error {
	dirs, _ := os.ReadDir(filepath.Join(o.StateDir, "worktrees"))
	seen := map[string]bool{}
	for _, g := range dirs {
		if !g.IsDir() {
			continue
		}
		ids, _ := os.ReadDir(filepath.Join(o.StateDir, "worktrees", g.Name()))
		for _, id := range ids {
			if !id.IsDir() {
				continue
			}
			run := tasks.TaskRunName(g.Name(), id.Name())
			seen[run] = true
			wt := tasks.TaskWorkTree(o.StateDir, g.Name(), id.Name())
			switch f, ok := fate[run]; {
			case ok && f == fateLive:
			case ok && f == fateKeep:
				p.Keep = append(p.Keep, CleanItem{Kind: "worktree", Name: p.rel(wt), Note: "the work of run " + run})
			default:
				p.Remove = append(p.Remove, CleanItem{Kind: "worktree", Name: p.rel(wt), Note: "task " + id.Name() + " of graph " + g.Name(), paths: []string{wt}, force: true})
			}
		}
	}
	if p.repo != "" {
		branches, err := gitx.Branches(ctx, p.repo, "agentloop/")
		if err != nil {
			return err
		}
		for _, br := range branches {
			parts := strings.Split(br, "/")
			if len(parts) != 3 {
				continue
			}
			run := tasks.TaskRunName(parts[1], parts[2])
			if f, ok := fate[run]; ok && f != fateRemove {
				continue
			}
			switch {
			case gitx.IsMerged(ctx, p.repo, br):
				p.Remove = append(p.Remove, CleanItem{Kind: "branch", Name: br, Note: "merged", branch: br})
			case o.All || named(run):
				p.Remove = append(p.Remove, CleanItem{Kind: "branch", Name: br, Note: "NOT merged: its work is lost", branch: br, force: true})
			default:
				p.Keep = append(p.Keep, CleanItem{Kind: "branch", Name: br, Note: fmt.Sprintf("not merged: its work is on no other branch; 'git branch -D %s' deletes it", br)})
			}
		}
	}
	for _, g := range graphs {
		left := false
		for run, f := range fate {
			if strings.HasPrefix(run, g+"-") && f != fateRemove {
				left = true
			}
		}
		if !left {
			p.Remove = append(p.Remove, CleanItem{Kind: "graph", Name: g, Note: "none of its tasks' runs is left; running its task file starts afresh",
				paths: []string{graph.StatePath(o.StateDir, g), graph.JournalPath(o.StateDir, g), tasks.WorkTrees(o.StateDir, g)}})
		}
	}
	return nil
}

func (p *CleanPlan) rel(path string) string {
	if p.repo != "" {
		return relTo(p.repo, path)
	}
	return relTo(filepath.Dir(p.store.Root), path)
}

// Apply removes what the plan lists, in order: runs (each with its lock held,
// so that no loop starts on it meanwhile), run folders, checkpoints, worktrees,
// branches, graphs. A run that a process took since the plan was made is left
// alone and reported in the error; so is anything that could not be removed.
func (p *CleanPlan) Apply(ctx context.Context) (removed []CleanItem, err error) {
	var errs []error
	for _, it := range p.Remove {
		if err := p.remove(ctx, it); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", it.Kind, it.Name, err))
			continue
		}
		removed = append(removed, it)
	}
	if p.repo != "" {
		_ = gitx.PruneWorktrees(ctx, p.repo)
	}
	_ = os.Remove(filepath.Join(p.store.Root, "worktrees")) // once empty
	return removed, errors.Join(errs...)
}

func (p *CleanPlan) remove(ctx context.Context, it CleanItem) error {
	if it.run != "" {
		lock, err := p.store.Lock(it.run)
		if err != nil {
			return fmt.Errorf("left alone: %w", err)
		}
		defer func() { _ = lock.Release() }()
	}
	switch it.Kind {
	case "worktree":
		if p.repo != "" {
			if err := gitx.RemoveWorktree(ctx, p.repo, it.paths[0], it.force); err == nil {
				return nil
			}
		}
	case "checkpoints":
		return gitx.DeleteRefs(ctx, p.repo, it.refs)
	case "checkpoints on " + it.remote:
		return gitx.DeleteRemoteRefs(ctx, p.repo, it.remote, it.refs)
	case "branch":
		if it.force {
			return gitx.DeleteBranch(ctx, p.repo, it.branch)
		}
		return gitx.DeleteMergedBranch(ctx, p.repo, it.branch)
	}
	for _, path := range it.paths {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	return nil
}
