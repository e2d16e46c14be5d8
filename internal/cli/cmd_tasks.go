package cli

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/ui"
)

// graphState is a task graph's persisted progress: each task's outcome and
// which branches were merged back. Running the same task file again resumes it.
type graphState struct {
	Version  int                      `json:"version"`
	File     string                   `json:"file"`
	Outcomes map[string]tasks.Outcome `json:"outcomes"`
	Merged   []string                 `json:"merged,omitempty"`
}

var graphNameChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// runTasks is `agentloop run --tasks FILE`: every task a loop of its own in its
// own git worktree and branch, independent ones in parallel, merged back in
// dependency order.
func runTasks(cmd *cobra.Command, d Deps, f *runFlags) error {
	ctx := cmd.Context()
	file, err := tasks.Load(f.tasks)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	graph, err := tasks.NewGraph(file.Tasks)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	cfg, err := loadConfig(d, f.config, overrides(cmd, f))
	if err != nil {
		return err
	}
	repo, err := d.Getwd()
	if err != nil {
		return err
	}
	if !gitx.IsRepo(ctx, repo) {
		return usageError("a task graph runs each task in its own git worktree: run it inside a git repository with at least one commit")
	}
	base := "HEAD"
	name := strings.Trim(graphNameChars.ReplaceAllString(strings.TrimSuffix(filepath.Base(f.tasks), filepath.Ext(f.tasks)), "-"), "-")
	if name == "" {
		name = "tasks"
	}
	stateDir := cfg.StateDir
	if stateDir == "" {
		stateDir = ".agentloop"
	}
	if !filepath.IsAbs(stateDir) {
		stateDir = filepath.Join(repo, stateDir)
	}
	g := &graphRun{d: d, f: f, cfg: cfg, repo: repo, base: base, name: name, stateDir: stateDir, file: file,
		out: ui.New(ui.Options{Out: d.Stdout, Now: d.Now, JSON: f.logFormat == "json"})}
	if err := g.load(); err != nil {
		return err
	}
	parallel := f.parallel
	if !cmd.Flags().Changed("parallel") && file.Parallel > 0 {
		parallel = file.Parallel
	}
	g.out.Linef("Starting task graph %s: %d tasks, up to %d in parallel", name, len(file.Tasks), max(parallel, 1))
	sched := tasks.Scheduler{
		Parallel: parallel,
		Run:      g.runTask,
		Budget:   g.budget,
		Started:  func(t tasks.Task) { g.out.Linef("Task %s started: %s", t.ID, firstLine(t.Text())) },
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
	}
	g.save()
	g.summary(outcomes)
	switch {
	case ctx.Err() != nil:
		g.out.Linef("Interrupted. Run the same command again to resume the graph.")
		return &ExitError{Code: ExitInterrupted}
	case execErr != nil && !errors.Is(execErr, tasks.ErrBudgetExhausted):
		return execErr
	}
	return &ExitError{Code: graphExit(outcomes, execErr)}
}

// graphExit is the exit code of a finished graph: 0 when every task is done.
func graphExit(out map[string]tasks.Outcome, execErr error) int {
	code := ExitOK
	for _, o := range out {
		switch o.State {
		case tasks.StateEscalated, tasks.StateBlocked:
			code = max(code, ExitEscalated)
		case tasks.StateFailed, tasks.StateSkipped, tasks.StatePending:
			code = max(code, ExitAborted)
		}
	}
	if errors.Is(execErr, tasks.ErrBudgetExhausted) {
		code = max(code, ExitAborted)
	}
	if code == ExitEscalated {
		return ExitEscalated
	}
	return code
}
