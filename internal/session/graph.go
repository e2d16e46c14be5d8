package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/ui"
)

// GraphState is a task graph's persisted progress: each task's outcome and
// which branches were merged back. Running the same task file again resumes it.
type GraphState struct {
	Version  int                      `json:"version"`
	File     string                   `json:"file"`
	Outcomes map[string]tasks.Outcome `json:"outcomes"`
	Merged   []string                 `json:"merged,omitempty"`
}

// GraphOptions are what a task graph is run with.
type GraphOptions struct {
	TaskFile string         // tasks.yaml or a Markdown checklist
	Config   *config.Config // the loaded configuration, flags applied
	Getenv   func(string) string
	Parallel int // how many tasks run at once; 0: the task file's, else 1
	Verbose  bool
	JSON     bool // progress as JSON lines
	Log      *slog.Logger
	// Host is what the preflight reads of the machine (PATH, environment,
	// root); its zero value checks no program on PATH.
	Host agent.Host
}

// GraphResult is how a task graph ended.
type GraphResult struct {
	Outcomes        map[string]tasks.Outcome
	Interrupted     bool
	BudgetExhausted bool // the global budget stopped tasks from starting
}

var graphNameChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// GraphName is the name of the task graph of a task file: its base name
// without the extension, in the characters a run name may hold.
func GraphName(taskFile string) string {
	name := strings.Trim(graphNameChars.ReplaceAllString(strings.TrimSuffix(filepath.Base(taskFile), filepath.Ext(taskFile)), "-"), "-")
	if name == "" {
		name = "tasks"
	}
	return name
}

// RunGraph runs a task graph: every task a loop of its own in its own git
// worktree and branch, independent ones in parallel, merged back in dependency
// order. The work tree is the repository's (pr.Getwd).
func RunGraph(ctx context.Context, pr Process, o GraphOptions) (GraphResult, error) {
	file, err := tasks.Load(o.TaskFile)
	if err != nil {
		return GraphResult{}, &UsageError{Err: err}
	}
	graph, err := tasks.NewGraph(file.Tasks)
	if err != nil {
		return GraphResult{}, &UsageError{Err: err}
	}
	repo, err := pr.Getwd()
	if err != nil {
		return GraphResult{}, err
	}
	if err := CheckGraphRepo(ctx, repo); err != nil {
		return GraphResult{}, err
	}
	name := GraphName(o.TaskFile)
	g := &graphRun{pr: pr, o: o, repo: repo, base: "HEAD", name: name, stateDir: plan.StateDir(o.Config, repo), file: file,
		out: ui.New(ui.Options{Out: pr.Progress(o.JSON), Now: pr.Now, JSON: o.JSON})}
	if err := g.load(); err != nil {
		return GraphResult{}, err
	}
	// Every agent and gate a task to run may start is checked before any task
	// starts, as a single run checks its own before the baseline: a missing
	// program is found now, with no worktree, branch or state made.
	if _, err := g.preflight(); err != nil {
		return GraphResult{}, err
	}
	parallel := o.Parallel
	if parallel == 0 {
		parallel = max(file.Parallel, 1)
	}
	g.out.Linef("Starting task graph %s: %d tasks, up to %d in parallel", name, len(file.Tasks), max(parallel, 1))
	sched := tasks.Scheduler{
		Parallel: parallel,
		Run:      g.runTask,
		Budget:   g.budget,
		Started:  func(t tasks.Task) { g.out.Linef("%s", TaskStartLine(t)) },
		Finished: g.finished,
	}
	prior := map[string]tasks.Outcome{}
	for id, o := range g.st.Outcomes {
		if o.State.Done() {
			prior[id] = o
		}
	}
	outcomes, execErr := sched.Execute(ctx, graph, prior)
	g.mu.Lock()
	g.st.Outcomes = outcomes
	g.mu.Unlock()
	if ctx.Err() == nil {
		g.mergeBack(ctx, outcomes)
		g.prune(ctx)
	}
	g.save()
	g.summary(outcomes)
	g.kept(outcomes)
	res := GraphResult{Outcomes: outcomes, BudgetExhausted: errors.Is(execErr, tasks.ErrBudgetExhausted)}
	switch {
	case ctx.Err() != nil:
		g.out.Linef("Interrupted. Run the same command again to resume the graph.")
		res.Interrupted = true
		return res, nil
	case execErr != nil && !res.BudgetExhausted:
		return res, execErr
	}
	return res, nil
}

// GraphBase is the commit the tasks' branches of a graph started in repo
// start from: its HEAD's, for clones of the repository elsewhere to start
// from the same.
func GraphBase(ctx context.Context, repo string) (string, error) {
	c := gitx.CommitOf(ctx, repo, "HEAD")
	if c == "" {
		return "", &UsageError{Err: errors.New("a task graph starts its tasks' branches from the current commit: make a first commit")}
	}
	return c, nil
}

// CheckGraphRepo says why a task graph cannot run in repo, if it cannot.
func CheckGraphRepo(ctx context.Context, repo string) error {
	if !gitx.IsRepo(ctx, repo) {
		return &UsageError{Err: errors.New("a task graph runs each task in its own git worktree: run it inside a git repository with at least one commit")}
	}
	return nil
}

type graphRun struct {
	pr       Process
	o        GraphOptions
	repo     string
	base     string
	name     string
	stateDir string
	file     *tasks.File
	out      *ui.Printer

	mu sync.Mutex
	st GraphState
	// gitMu serialises worktree creation: git locks the repository's metadata.
	gitMu sync.Mutex
}

// GraphStatePath is where the state of the task graph of a name is kept.
func GraphStatePath(stateDir, name string) string {
	return filepath.Join(stateDir, "graphs", name+".json")
}

func (g *graphRun) path() string { return GraphStatePath(g.stateDir, g.name) }

func (g *graphRun) load() error {
	g.st = GraphState{Version: 1, File: g.file.Path, Outcomes: map[string]tasks.Outcome{}}
	b, err := os.ReadFile(g.path())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read task graph state: %w", err)
	}
	if err := json.Unmarshal(b, &g.st); err != nil {
		aside := g.path() + ".corrupt-" + g.pr.Now().UTC().Format("20060102-150405")
		if mvErr := os.Rename(g.path(), aside); mvErr != nil {
			return fmt.Errorf("the state of task graph %s is unreadable (%v) and could not be moved aside: %w", g.name, err, mvErr)
		}
		g.out.Warnf("the state of task graph %s is unreadable (%v); it was moved to %s and the graph starts afresh (each task's own state is kept)", g.name, err, aside)
		g.st = GraphState{Version: 1, File: g.file.Path, Outcomes: map[string]tasks.Outcome{}}
	} else {
		g.out.Linef("Resuming task graph %s", g.name)
	}
	if g.st.Outcomes == nil {
		g.st.Outcomes = map[string]tasks.Outcome{}
	}
	return nil
}

func (g *graphRun) save() {
	g.mu.Lock()
	b, err := json.MarshalIndent(g.st, "", "  ")
	g.mu.Unlock()
	if err == nil {
		err = state.EnsureDir(filepath.Dir(g.path()))
	}
	if err == nil {
		err = state.WriteFileAtomic(g.path(), b, 0o600)
	}
	if err != nil {
		g.out.Warnf("task graph state not saved: %v", err)
	}
}

func (g *graphRun) branch(id string) string { return TaskBranch(g.name, id) }

// TaskRunName is the run name of the task id of the graph: its state, its run
// folder and what status, report and resume call it.
func TaskRunName(graph, id string) string { return graph + "-" + id }

// TaskBranch is the branch the task id of the graph works on.
func TaskBranch(graph, id string) string { return "agentloop/" + graph + "/" + id }

// GraphWorkTrees is the folder of the git worktrees of the graph's tasks.
func GraphWorkTrees(stateDir, graph string) string {
	return filepath.Join(stateDir, "worktrees", graph)
}

// TaskWorkTree is the git worktree of the task id of the graph.
func TaskWorkTree(stateDir, graph, id string) string {
	return filepath.Join(GraphWorkTrees(stateDir, graph), id)
}

// AddTaskWorkTree creates the worktree of the task id of the graph on its
// branch from base, unless it exists. Calls on one repository must not run at
// once (git locks its metadata).
func AddTaskWorkTree(ctx context.Context, repo, stateDir, graph, id, base string) error {
	wt := TaskWorkTree(stateDir, graph, id)
	if _, err := os.Stat(wt); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := gitx.AddWorktree(ctx, repo, wt, TaskBranch(graph, id), base); err != nil {
		return fmt.Errorf("task %s: create its worktree: %w", id, err)
	}
	return nil
}

// ResolveTask is the plan of the task t of the graph: its procedure from cfg, in
// its worktree, the task's prompt, gates and limits applied; its state is kept
// in the repository's state folder stateDir.
func ResolveTask(cfg *config.Config, stateDir, graph string, t tasks.Task, getenv func(string) string, verbose bool) (*plan.Plan, error) {
	p, err := plan.Resolve(cfg, t.Procedure, plan.Options{WorkDir: TaskWorkTree(stateDir, graph, t.ID), Getenv: getenv, Verbose: verbose})
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.ID, err)
	}
	p.Name, p.StateDir = TaskRunName(graph, t.ID), stateDir
	if err := plan.ApplyTask(p, t); err != nil {
		return nil, err
	}
	return p, nil
}

// CommitTask commits the work of the task t in its worktree wt on its branch.
func CommitTask(ctx context.Context, wt string, t tasks.Task) error {
	return gitx.Commit(ctx, wt, fmt.Sprintf("agentloop: task %s: %s", t.ID, firstLine(t.Text())))
}

func (g *graphRun) worktree(id string) string { return TaskWorkTree(g.stateDir, g.name, id) }

// TaskPlan is one task of a graph resolved to the plan it runs with.
type TaskPlan struct {
	Task  tasks.Task
	Title string // the first line of the task's text
	Plan  *plan.Plan
}

// CheckGraph resolves every task of a task file still to run, as [RunGraph]
// would, and checks that their agents and gates can start; it runs and
// writes nothing (run --dry-run --tasks). The error is a *UsageError for a
// task file or configuration mistake, else the joined preflight errors, each
// naming its tasks.
func CheckGraph(ctx context.Context, pr Process, o GraphOptions) ([]TaskPlan, error) {
	file, err := tasks.Load(o.TaskFile)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	if _, err := tasks.NewGraph(file.Tasks); err != nil {
		return nil, &UsageError{Err: err}
	}
	repo, err := pr.Getwd()
	if err != nil {
		return nil, err
	}
	name := GraphName(o.TaskFile)
	g := &graphRun{pr: pr, o: o, repo: repo, name: name, stateDir: plan.StateDir(o.Config, repo), file: file,
		out: ui.New(ui.Options{Out: io.Discard})}
	if err := g.load(); err != nil {
		return nil, err
	}
	return g.preflight()
}

// preflight resolves the tasks still to run in the repository (their
// worktrees do not exist yet and start from its HEAD) and checks each plan's
// agents and gates; tasks that fail the same way are named together.
func (g *graphRun) preflight() ([]TaskPlan, error) {
	var plans []TaskPlan
	var order []string
	failed := map[string][]string{} // error text → task ids
	errs := map[string]error{}
	for _, t := range g.file.Tasks {
		if t.Done || g.st.Outcomes[t.ID].State.Done() {
			continue
		}
		p, err := plan.Resolve(g.o.Config, t.Procedure, plan.Options{WorkDir: g.repo, Getenv: g.o.Getenv, Verbose: g.o.Verbose})
		if err == nil {
			p.Name, p.StateDir = TaskRunName(g.name, t.ID), g.stateDir
			err = plan.ApplyTask(p, t)
		}
		if err != nil {
			return nil, &UsageError{Err: fmt.Errorf("task %s: %w", t.ID, err)}
		}
		plans = append(plans, TaskPlan{Task: t, Title: firstLine(t.Text()), Plan: p})
		err = p.Preflight(g.o.Host)
		var each []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			each = j.Unwrap()
		} else if err != nil {
			each = []error{err}
		}
		for _, e := range each {
			key := e.Error()
			if _, seen := errs[key]; !seen {
				order = append(order, key)
				errs[key] = e
			}
			failed[key] = append(failed[key], t.ID)
		}
	}
	var all []error
	for _, key := range order {
		ids := failed[key]
		label := "task " + ids[0]
		if len(ids) > 1 {
			label = "tasks " + strings.Join(ids, ", ")
		}
		all = append(all, fmt.Errorf("%s: %w", label, errs[key]))
	}
	return plans, errors.Join(all...)
}

// runTask runs one task's loop in its worktree.
func (g *graphRun) runTask(ctx context.Context, t tasks.Task) (tasks.Outcome, error) {
	wt := g.worktree(t.ID)
	br := g.branch(t.ID)
	g.gitMu.Lock()
	err := AddTaskWorkTree(ctx, g.repo, g.stateDir, g.name, t.ID, g.base)
	g.gitMu.Unlock()
	if err != nil {
		return tasks.Outcome{}, err
	}
	p, err := ResolveTask(g.o.Config, g.stateDir, g.name, t, g.o.Getenv, g.o.Verbose)
	if err != nil {
		return tasks.Outcome{}, err
	}
	screen := ui.New(ui.Options{Out: g.pr.Progress(g.o.JSON), Now: g.pr.Now, Quiet: !g.o.Verbose, JSON: g.o.JSON, Prefix: t.ID + ": ", Task: t.ID})
	s, err := Open(g.pr, p, screen, g.o.Log, false)
	if err != nil {
		return tasks.Outcome{}, err
	}
	g.capToGlobal(p, s.st.Spend.Usage.Add(s.st.Spend.Reviewer))
	// The task's work is committed on its branch whenever the task is found
	// ended, not only right after its loop: a crash between the loop's end and
	// the commit must not leave the work out of the merge.
	commit := func() {
		if err := CommitTask(context.WithoutCancel(ctx), wt, t); err != nil {
			screen.Warnf("commit the task's work: %v", err)
		}
	}
	if TaskRunOver(s.st) {
		s.Close()
		commit()
		return outcomeOf(s.st, br), nil
	}
	_, runErr := s.Run(ctx)
	commit()
	return outcomeOf(s.st, br), runErr
}

// TaskRunOver reports whether the run of a task, found in st when its graph
// resumes, is over: succeeded, completed or escalated, it is not run again
// (its work is committed and merged back, or waits for a human); interrupted
// or aborted, it continues from st.
func TaskRunOver(st *loop.State) bool {
	return st.Status.Ended() && st.Status != loop.StatusInterrupted && st.Status != loop.StatusAborted
}

// OutcomeOf is how a task whose run ended in st stands in its graph.
func OutcomeOf(st *loop.State, branch string) tasks.Outcome { return outcomeOf(st, branch) }

func outcomeOf(st *loop.State, branch string) tasks.Outcome {
	o := tasks.Outcome{Reason: st.Reason, Iterations: st.TotalIterations, Usage: st.Spend.Usage.Add(st.Spend.Reviewer), Branch: branch}
	switch st.Status {
	case loop.StatusSucceeded:
		o.State = tasks.StateSucceeded
	case loop.StatusCompleted:
		o.State = tasks.StateCompleted
	case loop.StatusEscalated:
		o.State = tasks.StateEscalated
	case loop.StatusInterrupted:
		o.State = tasks.StateInterrupted
	default:
		o.State = tasks.StateFailed
	}
	return o
}

func (g *graphRun) finished(t tasks.Task, o tasks.Outcome) {
	g.mu.Lock()
	g.st.Outcomes[t.ID] = o
	g.mu.Unlock()
	g.save()
	line := TaskLine(t.ID, o)
	if o.State.Done() {
		g.out.Linef("%s", line)
		return
	}
	g.out.Warnf("%s", line)
}

// TaskStartLine is the progress line of the task t starting.
func TaskStartLine(t tasks.Task) string {
	return fmt.Sprintf("Task %s started: %s", t.ID, firstLine(t.Text()))
}

// TaskLine is the progress line of the task id that ended as o.
func TaskLine(id string, o tasks.Outcome) string {
	line := fmt.Sprintf("Task %s %s after %d %s", id, o.State, o.Iterations, pluralize(o.Iterations, "iteration"))
	if o.Reason != "" {
		line += ": " + o.Reason
	}
	return line
}

// budget is the global budget over every task of the graph, as the decision
// engine judges it before a task starts.
func (g *graphRun) budget() (bool, string) { return GlobalBudget(g.file.Budget, g.spent()) }

// GlobalBudget is whether a graph's budget b is spent, as the decision engine
// judges it, and why; a graph without a cost or token budget never is.
func GlobalBudget(b budget.Limits, spent budget.Spent) (exhausted bool, reason string) {
	if b.MaxCostUSD <= 0 && b.MaxTokens <= 0 {
		return false, ""
	}
	if over, why := decide.Exhausted(b, spent); over {
		return true, "global budget: " + why
	}
	return false, ""
}

// spent is what every task of the graph has spent so far (an unreadable state
// file is left out, not a reason to ignore the budget).
func (g *graphRun) spent() budget.Spent {
	states, _ := state.Store{Root: g.stateDir}.List()
	var u evidence.Usage
	for _, st := range states {
		if strings.HasPrefix(st.Name, g.name+"-") {
			u = u.Add(st.Spend.Usage).Add(st.Spend.Reviewer)
		}
	}
	return budget.SpentFrom(u, 0, 0)
}

// capToGlobal bounds a task's own cost and token limits by what is left of the
// graph's budget, so one task cannot spend what the others were to have.
func (g *graphRun) capToGlobal(p *plan.Plan, own evidence.Usage) {
	p.Proc.Limits.Limits = CapToGraph(p.Proc.Limits.Limits, g.file.Budget, g.spent(), own)
}

// CapToGraph is a task's own limits l bounded by what is left of its graph's
// budget b once the other tasks' spend is counted: all is what every task of
// the graph spent so far (the running ones' included), own what this one did.
func CapToGraph(l, b budget.Limits, all budget.Spent, own evidence.Usage) budget.Limits {
	return l.Within(b, all.Minus(budget.SpentFrom(own, 0, 0)))
}

// mergeBack merges the branches of succeeded tasks into the current branch in
// the order they finished (dependencies first). A conflict turns that task into
// an escalation; nothing is resolved silently and the tree is left as it was.
func (g *graphRun) mergeBack(ctx context.Context, out map[string]tasks.Outcome) {
	order := tasks.MergeOrder(out, g.st.Merged)
	if len(order) == 0 {
		return
	}
	results, err := MergeTasks(ctx, g.repo, g.name, g.file, order, g.out.Warnf)
	for _, r := range results {
		if r.Merged {
			g.st.Merged = append(g.st.Merged, r.ID)
			g.out.Linef("Merged task %s (branch %s)", r.ID, r.Branch)
		} else {
			g.out.Warnf("task %s: merging branch %s conflicts in %s; left unmerged for you to resolve", r.ID, r.Branch, strings.Join(r.Files, ", "))
		}
	}
	tasks.ApplyMerges(out, results)
	if err != nil {
		g.out.Warnf("%v", err)
	}
}

// MergeTasks merges the branches of the done tasks of the graph into repo in
// order (see [tasks.MergeBack]) and ticks each merged task in a Markdown plan;
// what could not be ticked is a warning.
func MergeTasks(ctx context.Context, repo, graph string, file *tasks.File, order []string, warnf func(format string, args ...any)) ([]tasks.MergeResult, error) {
	branch := func(id string) string { return TaskBranch(graph, id) }
	results, err := tasks.MergeBack(ctx, repo, order, branch, gitx.Merge)
	for _, r := range results {
		if r.Merged {
			tick(ctx, repo, file, r.ID, warnf)
		}
	}
	return results, err
}

// tick marks a merged task's item done in a Markdown plan and commits the plan,
// so the work tree stays clean for the next merge.
func tick(ctx context.Context, repo string, file *tasks.File, id string, warnf func(format string, args ...any)) {
	if !strings.HasSuffix(strings.ToLower(file.Path), ".md") {
		return
	}
	t, ok := taskByID(file.Tasks, id)
	if !ok || t.Pos.Line == 0 {
		return
	}
	if err := tasks.TickMarkdown(file.Path, t.Pos.Line); err != nil {
		warnf("tick %s in %s: %v", id, file.Path, err)
		return
	}
	if err := gitx.Commit(ctx, repo, fmt.Sprintf("agentloop: task %s done (%s)", id, filepath.Base(file.Path))); err != nil {
		warnf("commit the ticked plan: %v", err)
	}
}

// prune removes the worktree and the branch of every merged task: its work is
// on the current branch now. It runs after every merge, so a crash between a
// merge and the removal is made good by the next run of the graph. A worktree
// git will not remove (files changed after the merge) is kept and named.
func (g *graphRun) prune(ctx context.Context) {
	PruneTasks(ctx, g.repo, g.stateDir, g.name, g.st.Merged, g.out.Warnf)
}

// PruneTasks removes the worktrees and branches of the merged tasks of the
// graph, then the graph's worktree folder once empty; what could not be
// removed is a warning.
func PruneTasks(ctx context.Context, repo, stateDir, graph string, merged []string, warnf func(format string, args ...any)) {
	for _, id := range merged {
		wt := TaskWorkTree(stateDir, graph, id)
		if _, err := os.Stat(wt); err == nil {
			if err := gitx.RemoveWorktree(ctx, repo, wt, false); err != nil {
				warnf("task %s is merged but its worktree %s was kept: %v", id, relTo(repo, wt), err)
				continue
			}
		}
		if err := gitx.DeleteMergedBranch(ctx, repo, TaskBranch(graph, id)); err != nil {
			warnf("task %s is merged but its branch was kept: %v", id, err)
		}
	}
	_ = os.Remove(GraphWorkTrees(stateDir, graph)) // once empty
}

// kept says where the work of the tasks that were not merged is: their
// worktrees and branches stay for a person to look at or resume.
func (g *graphRun) kept(out map[string]tasks.Outcome) {
	first := true
	for _, t := range g.file.Tasks {
		if slices.Contains(g.st.Merged, t.ID) {
			continue
		}
		wt := g.worktree(t.ID)
		if _, err := os.Stat(wt); err != nil {
			continue
		}
		if first {
			fmt.Fprintln(g.pr.Stdout, "\nKept for you (not merged):")
			first = false
		}
		fmt.Fprintf(g.pr.Stdout, "  %s (%s): worktree %s, branch %s\n", t.ID, out[t.ID].State, g.rel(wt), g.branch(t.ID))
	}
	if !first {
		fmt.Fprintf(g.pr.Stdout, "Run the same command again to resume them; 'agentloop clean' lists what can be removed.\n")
	}
}

// rel is path relative to the repository when it is inside it.
func (g *graphRun) rel(path string) string { return relTo(g.repo, path) }

// relTo is path relative to repo when it is inside it.
func relTo(repo, path string) string {
	if r, err := filepath.Rel(repo, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

func taskByID(ts []tasks.Task, id string) (tasks.Task, bool) {
	for _, t := range ts {
		if t.ID == id {
			return t, true
		}
	}
	return tasks.Task{}, false
}

func (g *graphRun) summary(out map[string]tasks.Outcome) {
	WriteGraphSummary(g.pr.Stdout, g.file.Tasks, out)
}

// WriteGraphSummary writes the table of a graph's tasks as they ended.
func WriteGraphSummary(w io.Writer, ts []tasks.Task, out map[string]tasks.Outcome) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tITERATIONS\tREASON")
	for _, t := range ts {
		o, ok := out[t.ID]
		if !ok {
			o.State = tasks.StatePending
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", t.ID, o.State, o.Iterations, o.Reason)
	}
	tw.Flush()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(line) > 72 {
		line = line[:69] + "..."
	}
	return line
}

// LoadGraphReport reads a task graph's report: every task with its state, and
// the graph's spend and status. ok is false when there is no graph of that name.
func LoadGraphReport(stateDir, name string) (r report.Run, ok bool, err error) {
	b, err := os.ReadFile(GraphStatePath(stateDir, name))
	if errors.Is(err, os.ErrNotExist) {
		return report.Run{}, false, nil
	}
	if err != nil {
		return report.Run{}, true, fmt.Errorf("read task graph %s: %w", name, err)
	}
	var gs GraphState
	if err := json.Unmarshal(b, &gs); err != nil {
		return report.Run{}, true, fmt.Errorf("read task graph %s: %w", name, err)
	}
	file, err := tasks.Load(gs.File)
	if err != nil {
		return report.Run{}, true, fmt.Errorf("task graph %s: read its task file: %w", name, err)
	}
	r, err = GraphReport(name, gs.File, file.Tasks, gs.Outcomes, nil)
	if err == nil {
		attachRuns(state.Store{Root: stateDir}, name, r.Tasks)
	}
	return r, true, err
}

// GraphReport is the report of the task graph name of the task file: every
// task with its state (running names those running now), and the graph's
// spend and status.
func GraphReport(name, file string, ts []tasks.Task, outcomes map[string]tasks.Outcome, running map[string]bool) (report.Run, error) {
	g, err := tasks.NewGraph(ts)
	if err != nil {
		return report.Run{}, fmt.Errorf("task graph %s: %w", name, err)
	}
	st := &loop.State{Version: loop.StateVersion, Name: name, Procedure: "task graph " + file, Status: loop.StatusSucceeded}
	for _, t := range ts {
		o, ok := outcomes[t.ID]
		st.Spend.Usage = st.Spend.Usage.Add(o.Usage)
		st.TotalIterations += o.Iterations
		switch {
		case ok && o.State == tasks.StateEscalated:
			st.Status = loop.StatusEscalated
		case st.Status == loop.StatusEscalated:
		case running[t.ID]:
			st.Status = loop.StatusRunning
		case (!ok || !o.State.Done()) && st.Status != loop.StatusRunning:
			st.Status = loop.StatusInterrupted
		}
	}
	return report.Run{State: st, Tasks: tasks.Rows(g, outcomes, running)}, nil
}

// attachRuns gives each task row its own run (state, events, escalation), for
// the graph's report to show. A task whose state cannot be read is shown
// without it; reading moves nothing aside.
func attachRuns(store state.Store, graph string, rows []report.TaskRow) {
	states, _ := store.List()
	byName := make(map[string]*loop.State, len(states))
	for _, st := range states {
		byName[st.Name] = st
	}
	for i := range rows {
		st, ok := byName[graph+"-"+rows[i].ID]
		if !ok {
			continue
		}
		r, err := report.LoadRunDir(store.RunDir(st.Name, st.RunID), st)
		if err != nil {
			r = report.Run{State: st}
		}
		rows[i].Run = &r
	}
}
