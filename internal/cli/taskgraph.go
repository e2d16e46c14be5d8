package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
	"github.com/agentloop/agentloop/internal/ui"
)

type graphRun struct {
	d        Deps
	f        *runFlags
	cfg      *config.Config
	repo     string
	base     string
	name     string
	stateDir string
	file     *tasks.File
	out      *ui.Printer

	mu sync.Mutex
	st graphState
	// gitMu serialises worktree creation: git locks the repository's metadata.
	gitMu sync.Mutex
}

func (g *graphRun) path() string { return filepath.Join(g.stateDir, "graphs", g.name+".json") }

func (g *graphRun) load() error {
	g.st = graphState{Version: 1, File: g.file.Path, Outcomes: map[string]tasks.Outcome{}}
	b, err := os.ReadFile(g.path())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read task graph state: %w", err)
	}
	if err := json.Unmarshal(b, &g.st); err != nil {
		aside := g.path() + ".corrupt-" + g.d.Now().UTC().Format("20060102-150405")
		if mvErr := os.Rename(g.path(), aside); mvErr != nil {
			return fmt.Errorf("the state of task graph %s is unreadable (%v) and could not be moved aside: %w", g.name, err, mvErr)
		}
		g.out.Warnf("the state of task graph %s is unreadable (%v); it was moved to %s and the graph starts afresh (each task's own state is kept)", g.name, err, aside)
		g.st = graphState{Version: 1, File: g.file.Path, Outcomes: map[string]tasks.Outcome{}}
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

func (g *graphRun) taskName(id string) string { return g.name + "-" + id }
func (g *graphRun) branch(id string) string   { return "agentloop/" + g.name + "/" + id }

// runTask runs one task's loop in its worktree.
func (g *graphRun) runTask(ctx context.Context, t tasks.Task) (tasks.Outcome, error) {
	wt := filepath.Join(g.stateDir, "worktrees", g.name, t.ID)
	br := g.branch(t.ID)
	if _, err := os.Stat(wt); errors.Is(err, os.ErrNotExist) {
		g.gitMu.Lock()
		err := gitx.AddWorktree(ctx, g.repo, wt, br, g.base)
		g.gitMu.Unlock()
		if err != nil {
			return tasks.Outcome{}, fmt.Errorf("task %s: create its worktree: %w", t.ID, err)
		}
	}
	p, err := planFor(g.d, g.cfg, t.Procedure, wt, g.f.verbose)
	if err != nil {
		return tasks.Outcome{}, fmt.Errorf("task %s: %w", t.ID, err)
	}
	p.Name, p.StateDir, p.Task = g.taskName(t.ID), g.stateDir, t.Text()
	applyTask(p, t)
	if p.Decider, err = newDecider(p); err != nil {
		return tasks.Outcome{}, err
	}
	screen := ui.New(ui.Options{Out: g.d.Stdout, Now: g.d.Now, Quiet: !g.f.verbose, JSON: g.f.logFormat == "json", Prefix: t.ID + ": "})
	s, err := open(g.d, p, screen, newLogger(g.d, g.f), false)
	if err != nil {
		return tasks.Outcome{}, err
	}
	g.capToGlobal(p, s.st.Spend.Usage.Add(s.st.Spend.Reviewer))
	if s.st.Status.Ended() && s.st.Status != loop.StatusInterrupted && s.st.Status != loop.StatusAborted {
		s.lock.Release()
		return outcomeOf(s.st, br), nil
	}
	runErr := s.run(ctx)
	if ee, ok := errors.AsType[*ExitError](runErr); ok && ee.Err == nil {
		runErr = nil
	}
	if err := gitx.Commit(context.WithoutCancel(ctx), wt, fmt.Sprintf("agentloop: task %s: %s", t.ID, firstLine(t.Text()))); err != nil {
		screen.Warnf("commit the task's work: %v", err)
	}
	return outcomeOf(s.st, br), runErr
}

// applyTask puts a task's overrides on the plan of its procedure.
func applyTask(p *plan, t tasks.Task) {
	p.Proc.Prompt.Context = append(slices.Clone(p.Proc.Prompt.Context), "Task "+t.ID+": "+t.Text())
	if len(t.Gates) > 0 {
		p.Gates = nil
		for _, tg := range t.Gates {
			required := tg.Required == nil || *tg.Required
			p.Gates = append(p.Gates, engine.GateSpec{
				Name: tg.Name, Argv: commandArgv(config.Command{Shell: tg.Run}), Command: tg.Run, Timeout: tg.Timeout,
				Required: required, Format: tg.Format, TolerateBaseline: tg.TolerateBaseline,
			})
		}
	}
	if l := t.Limits; l != nil {
		pl := &p.Proc.Limits
		setIf(&pl.MaxIterations, l.MaxIterations)
		setIf(&pl.FailureThreshold, l.FailureThreshold)
		setIf(&pl.IterationTimeout, l.IterationTimeout)
		setIf(&pl.MaxTokens, l.MaxTokens)
		setIf(&pl.MaxCostUSD, l.MaxCostUSD)
		setIf(&pl.MaxDuration, l.MaxDuration)
		setIf(&pl.TokenBudget, l.TokenBudget)
	}
	if len(t.Files) > 0 {
		p.Scope = t.Files
	}
}

func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

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
	line := fmt.Sprintf("Task %s %s after %d %s", t.ID, o.State, o.Iterations, pluralize(o.Iterations, "iteration"))
	if o.Reason != "" {
		line += ": " + o.Reason
	}
	if o.State.Done() {
		g.out.Linef("%s", line)
		return
	}
	g.out.Warnf("%s", line)
}

// budget is the global budget over every task of the graph.
func (g *graphRun) budget() (bool, string) {
	b := g.file.Budget
	if b.MaxCostUSD <= 0 && b.MaxTokens <= 0 {
		return false, ""
	}
	u := g.spent()
	if b.MaxCostUSD > 0 && u.CostKnown && u.CostUSD >= b.MaxCostUSD {
		return true, fmt.Sprintf("global budget: $%.2f of $%.2f spent", u.CostUSD, b.MaxCostUSD)
	}
	if b.MaxTokens > 0 && u.TokensKnown && u.TotalTokens() >= b.MaxTokens {
		return true, fmt.Sprintf("global budget: %d of %d tokens spent", u.TotalTokens(), b.MaxTokens)
	}
	return false, ""
}

// spent is what every task of the graph has spent so far (an unreadable state
// file is left out, not a reason to ignore the budget).
func (g *graphRun) spent() evidence.Usage {
	states, _ := state.Store{Root: g.stateDir}.List()
	var u evidence.Usage
	for _, st := range states {
		if strings.HasPrefix(st.Name, g.name+"-") {
			u = u.Add(st.Spend.Usage).Add(st.Spend.Reviewer)
		}
	}
	return u
}

// capToGlobal bounds a task's own cost and token limits by what is left of the
// graph's budget, so one task cannot spend what the others were to have.
func (g *graphRun) capToGlobal(p *plan, own evidence.Usage) {
	b := g.file.Budget
	all := g.spent()
	l := &p.Proc.Limits
	if b.MaxCostUSD > 0 && all.CostKnown {
		left := b.MaxCostUSD - (all.CostUSD - own.CostUSD)
		if l.MaxCostUSD <= 0 || left < l.MaxCostUSD {
			l.MaxCostUSD = max(left, 0.0001)
		}
	}
	if b.MaxTokens > 0 && all.TokensKnown {
		left := b.MaxTokens - (all.TotalTokens() - own.TotalTokens())
		if l.MaxTokens <= 0 || left < l.MaxTokens {
			l.MaxTokens = max(left, 1)
		}
	}
}

// mergeBack merges the branches of succeeded tasks into the current branch in
// the order they finished (dependencies first). A conflict turns that task into
// an escalation; nothing is resolved silently and the tree is left as it was.
func (g *graphRun) mergeBack(ctx context.Context, out map[string]tasks.Outcome) {
	var order []string
	for _, id := range tasks.CompletionOrder(out) {
		if out[id].State.Done() && !slices.Contains(g.st.Merged, id) {
			order = append(order, id)
		}
	}
	if len(order) == 0 {
		return
	}
	results, err := tasks.MergeBack(ctx, g.repo, order, g.branch, gitx.Merge)
	for _, r := range results {
		if r.Merged {
			g.st.Merged = append(g.st.Merged, r.ID)
			g.out.Linef("Merged task %s (branch %s)", r.ID, r.Branch)
			g.tick(ctx, r.ID)
		} else {
			g.out.Warnf("task %s: merging branch %s conflicts in %s; left unmerged for you to resolve", r.ID, r.Branch, strings.Join(r.Files, ", "))
		}
	}
	tasks.ApplyMerges(out, results)
	if err != nil {
		g.out.Warnf("%v", err)
	}
}

// tick marks a merged task's item done in a Markdown plan and commits the plan,
// so the work tree stays clean for the next merge.
func (g *graphRun) tick(ctx context.Context, id string) {
	if !strings.HasSuffix(strings.ToLower(g.file.Path), ".md") {
		return
	}
	t, ok := taskByID(g.file.Tasks, id)
	if !ok || t.Pos.Line == 0 {
		return
	}
	if err := tasks.TickMarkdown(g.file.Path, t.Pos.Line); err != nil {
		g.out.Warnf("tick %s in %s: %v", id, g.file.Path, err)
		return
	}
	if err := gitx.Commit(ctx, g.repo, fmt.Sprintf("agentloop: task %s done (%s)", id, filepath.Base(g.file.Path))); err != nil {
		g.out.Warnf("commit the ticked plan: %v", err)
	}
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
	ids := make([]string, 0, len(g.file.Tasks))
	for _, t := range g.file.Tasks {
		ids = append(ids, t.ID)
	}
	tw := tabwriter.NewWriter(g.d.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tITERATIONS\tREASON")
	for _, id := range ids {
		o, ok := out[id]
		if !ok {
			o.State = tasks.StatePending
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", id, o.State, o.Iterations, o.Reason)
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
