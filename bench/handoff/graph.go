package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

// graphTask is a task of a campaign graph: two chains (c after a, d after b)
// run two at a time. Its gate is one of three kinds: plain (its own work file
// exists: the first attempt passes), guided (a file the agent creates only
// when a person's guidance says so) or merged (passes until another task's
// work is in the tree, unless guided: it fails in its loop or on the merged
// result, depending on which task merges first).
type graphTask struct {
	id, after string
	gate      string // plain, guided or merged
	other     string // merged: the task whose work makes the gate fail
}

func (t graphTask) gateCmd() string {
	switch t.gate {
	case "guided":
		return "test -f fixed-" + t.id + ".txt"
	case "merged":
		return "test ! -f work-" + t.other + ".txt || test -f fixed-" + t.id + ".txt"
	}
	return "test -f work-" + t.id + ".txt"
}

func (t graphTask) fix() string { return "create fixed-" + t.id + ".txt now" }

// randomGraph draws the gates of a graph's tasks.
func randomGraph(rng *rand.Rand) []graphTask {
	ts := []graphTask{{id: "a"}, {id: "b"}, {id: "c", after: "a", other: "b"}, {id: "d", after: "b", other: "a"}}
	for i := range ts {
		kinds := []string{"plain", "plain", "guided"}
		if ts[i].other != "" {
			kinds = append(kinds, "merged", "merged")
		}
		ts[i].gate = kinds[rng.IntN(len(kinds))]
	}
	return ts
}

func (c *campaign) graphRepo(dir string, ts []graphTask) error {
	var yml, tasks strings.Builder
	yml.WriteString("procedures:\n")
	tasks.WriteString("parallel: 2\ntasks:\n")
	files := map[string]string{".gitignore": ".agentloop/\n.fa/\n", "README.md": "a project\n"}
	for _, t := range ts {
		plan := "plan-" + t.id + ".txt"
		fmt.Fprintf(&yml, "  p%s:\n    agent: {cmd: [%q], format: claude-stream-json, env: {FAKEAGENT_PLAN: %q, FAKEAGENT_DIR: .fa}}\n    gates: [{name: check, run: %q}]\n    limits: {max_iterations: 2, failure_threshold: 5}\n",
			t.id, c.Fakeagent, filepath.Join(dir, plan), t.gateCmd())
		files[plan] = agentPlan("work-"+t.id+".txt", t.fix(), "fixed-"+t.id+".txt")
		deps := ""
		if t.after != "" {
			deps = ", depends_on: [" + t.after + "]"
		}
		fmt.Fprintf(&tasks, "  - {id: %s, title: task %s, procedure: p%s%s}\n", t.id, t.id, t.id, deps)
	}
	files["agentloop.yaml"] = yml.String()
	files["tasks.yaml"] = tasks.String()
	return harness.WriteRepo(dir, files)
}

// graphState is what the checks read of a graph's state file.
type graphState struct {
	Outcomes map[string]struct {
		State    string `json:"state"`
		Unmerged string `json:"unmerged"`
	} `json:"outcomes"`
	Merged []string `json:"merged"`
}

func (w *watch) graphState() graphState {
	var gs graphState
	b, err := os.ReadFile(filepath.Join(w.dir, ".agentloop", "graphs", "tasks.json"))
	if err == nil {
		err = json.Unmarshal(b, &gs)
	}
	if err != nil && !os.IsNotExist(err) {
		w.bad("graph state: %v", err)
	}
	return gs
}

// graphs drives n task graphs, parallel at a time.
func (c *campaign) graphs(ctx context.Context, n, parallel int) Report {
	var rep Report
	done := 0
	harness.Each(n, parallel, func(i int) {
		r := c.oneGraph(ctx, i)
		c.mu.Lock()
		defer c.mu.Unlock()
		rep.add(r)
		done++
		if c.progress != nil {
			fmt.Fprintf(c.progress, "graph %d ended (%d/%d): %d sessions (%s), %d attempts; so far %d sessions, %d anomalies\n",
				i+c.first, done, n, r.Sessions, counts(r.Commands), r.Attempts, rep.Sessions, rep.Anomalies)
			for _, p := range r.Problems {
				fmt.Fprintf(c.progress, "  %s\n", p)
			}
		}
	})
	return rep
}

// oneGraph drives graph i through random sessions — the graph run again,
// an escalated task answered with guidance, signals, the person's edits —
// until every task is merged.
func (c *campaign) oneGraph(ctx context.Context, i int) Report {
	i += c.first
	rng := rand.New(rand.NewPCG(c.seed, 1<<32+uint64(i)))
	rep := Report{Runs: 1}
	dir := filepath.Join(c.Root, fmt.Sprintf("graph-%d", i))
	ts := randomGraph(rng)
	var kinds []string
	for _, t := range ts {
		kinds = append(kinds, t.id+" "+t.gate)
	}
	w := newWatch(c, dir, "", fmt.Sprintf("graph %d (%s)", i, strings.Join(kinds, ", ")), &rep)
	if err := c.graphRepo(dir, ts); err != nil {
		w.bad("set up: %v", err)
		return rep
	}
	defer c.done(w)
	start, _ := w.git("rev-parse", "HEAD")
	w.checked = map[string]bool{start: true}
	sampler := c.Sample(dir)
	signalled := 0
	for s := 0; ; s++ {
		gs := w.graphState()
		if s > 0 && len(gs.Merged) == len(ts) {
			break
		}
		if s >= 3*maxSessions {
			rep.Unfinished = 1
			w.bad("not every task merged after %d sessions: merged %v", s, gs.Merged)
			break
		}
		final := s >= maxSessions
		cmd := command{kind: "graph"}
		var waiting []graphTask
		for _, t := range ts {
			if o := gs.Outcomes[t.id]; o.State == "escalated" && o.Unmerged != "refused" && o.Unmerged != "conflict" && !slices.Contains(gs.Merged, t.id) {
				waiting = append(waiting, t)
			}
		}
		if len(waiting) > 0 && (final || rng.IntN(5) < 3) {
			t := waiting[rng.IntN(len(waiting))]
			text := fmt.Sprintf("answer %d-%d: %s", s, rng.IntN(1000), t.fix())
			if !final && rng.IntN(4) == 0 {
				text = fmt.Sprintf("answer %d-%d: keep looking", s, rng.IntN(1000))
			}
			cmd = command{kind: "task-guidance", task: t.id, text: text}
		}
		if s > 0 && !final {
			w.userEdits(rng, s)
		}
		var sig syscall.Signal
		if !final {
			sig = []syscall.Signal{0, 0, 0, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}[rng.IntN(6)]
		}
		if w.graphSession(ctx, s, cmd, ts, sig, harness.Moment(rng, harness.Widen(c.windowFor(cmd.kind), signalled))) {
			signalled++
		}
	}
	if most := sampler.Stop(); most > 1 {
		w.bad("%d agents ran at once in one task's worktree", most)
	}
	if left := c.AgentsUnder(dir); len(left) > 0 {
		w.bad("agents left running after the graph ended: %v", left)
		for _, pid := range left {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	}
	if rep.Unfinished == 0 {
		w.graphEnd(ts)
	}
	w.end()
	return rep
}

// graphSession runs one session of a graph and checks what it left.
func (w *watch) graphSession(ctx context.Context, n int, cmd command, ts []graphTask, sig syscall.Signal, at time.Duration) bool {
	w.now = fmt.Sprintf("session %d (%s)", n, describe(cmd, sig, at))
	defer func() { w.now = "" }()
	taskName := "tasks-" + cmd.task
	var before harness.State
	if cmd.task != "" {
		before, _ = harness.ReadState(w.statePath(taskName))
	}
	w.rep.Sessions++
	w.rep.count(&w.rep.Commands, cmd.kind)
	if sig != 0 {
		w.rep.count(&w.rep.Signals, sig.String())
	}
	args := []string{"run", "--tasks", "tasks.yaml", "-q"}
	if cmd.task != "" {
		args = []string{"resume", taskName, "--guidance", cmd.text, "-q"}
	}
	ss, ok := w.run(ctx, cmd.kind, sig, at, args...)
	if !ok {
		return false
	}
	gs := w.graphState()
	died := ss.Code == -1 && !ss.Killed()
	end := fmt.Sprintf("exit %d", ss.Code)
	if ss.Killed() || died {
		end = "killed"
	}
	w.rep.count(&w.rep.Ends, end)

	w.checkFiles()
	states, _ := filepath.Glob(filepath.Join(w.dir, ".agentloop", "state", "tasks-*.json"))
	for _, path := range states {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		st, err := harness.ReadState(path)
		if err != nil {
			w.bad("%s: state: %v", name, err)
			continue
		}
		if st.RunID == "" {
			continue
		}
		w.runs[name+"/"+st.RunID] = runOf{name: name, st: st}
		w.runFile[st.RunID] = "work-" + strings.TrimPrefix(name, "tasks-") + ".txt"
		w.checkAttempts(name, st, ss.Killed() || died)
	}
	w.checkEdits()
	w.checkMerges(ts)
	if strings.Contains(ss.Stdout, "commit or stash your changes") {
		w.rep.Refused++
	}
	if ss.Killed() || died {
		w.settle()
		return true
	}
	all := len(gs.Merged) == len(ts)
	switch {
	case ss.Code == 0 && !all:
		w.bad("exit 0 with tasks not merged (merged: %v): %s", gs.Merged, harness.LastLine(ss.Stderr))
	case (ss.Code == 3 || ss.Code == 4) && all:
		w.bad("exit %d with every task merged", ss.Code)
	case ss.Code == 130 && ss.Signal == 0:
		w.bad("exit 130 without a signal: %s", harness.LastLine(ss.Stderr))
	case ss.Code != 0 && ss.Code != 3 && ss.Code != 4 && ss.Code != 130:
		w.bad("exit %d: %s", ss.Code, harness.LastLine(ss.Stderr))
	}
	var after harness.State
	if cmd.task != "" {
		after, _ = harness.ReadState(w.statePath(taskName))
	}
	// The graph's end lists the tasks not merged; a task resumed that waits
	// again ends as its own run does, with its escalation.
	graphEnded := cmd.task == "" || after.Status == "succeeded" || after.Status == "completed"
	if ss.Code != 0 && ss.Code != 130 && graphEnded && !strings.Contains(ss.Stdout, "Not merged:") {
		w.bad("exit %d without the list of tasks not merged", ss.Code)
	}
	// A task whose loop was done already (a session stopped before its
	// graph merged it) takes no guidance: its graph goes on, and says so.
	notNeeded := strings.Contains(ss.Stderr, "the guidance is not needed")
	if notNeeded && before.Status != "succeeded" && before.Status != "completed" {
		w.bad("the guidance was not needed, but the task's run was %s", before.Status)
	}
	if cmd.task != "" && ss.Signal == 0 && (ss.Code == 0 || ss.Code == 3 || ss.Code == 4) && !notNeeded {
		w.checkHandoff(taskName, cmd, before, after)
	}
	// The repository's work tree holds the merged work and the person's
	// changes only.
	status, _ := w.git("status", "--porcelain", "--untracked-files=all")
	for _, l := range strings.Split(status, "\n") {
		if l == "" {
			continue
		}
		if path := strings.TrimSpace(l[2:]); path != "README.md" && !strings.HasPrefix(path, "notes-") {
			w.bad("the repository's work tree has %q, which neither a merge nor the person made", l)
		}
	}
	// A refused merge waits for the person: they commit their changes.
	if strings.Contains(ss.Stdout, "commit or stash your changes") {
		if _, err := w.git("commit", "-q", "-am", "the person's changes"); err != nil {
			w.bad("commit the person's changes: %v", err)
		}
	}
	return ss.Signal != 0
}

// checkMerges runs, on every commit of the repository's branch not checked
// yet, the gate of each task whose work it brought: nothing is merged whose
// gate fails on the merged result. The task's work there holds whole
// attempts only, and its work is merged once.
func (w *watch) checkMerges(ts []graphTask) {
	out, err := w.git("rev-list", "--first-parent", "--reverse", "main")
	if err != nil {
		w.bad("%v", err)
		return
	}
	for _, commit := range strings.Fields(out) {
		if w.checked[commit] {
			continue
		}
		w.checked[commit] = true
		changed, err := w.git("diff", "--name-only", commit+"^1", commit)
		if err != nil {
			w.bad("%v", err)
			continue
		}
		var merged []graphTask
		for _, t := range ts {
			if slices.Contains(strings.Fields(changed), "work-"+t.id+".txt") {
				merged = append(merged, t)
			}
		}
		if len(merged) == 0 {
			continue
		}
		tmp, err := os.MkdirTemp(w.c.Root, "merge-")
		if err != nil {
			w.bad("%v", err)
			continue
		}
		archive := exec.Command("sh", "-c", "git archive "+commit+" | tar -x -C "+tmp)
		archive.Dir = w.dir
		if b, err := archive.CombinedOutput(); err != nil {
			w.bad("check out %s: %v: %s", commit, err, b)
		}
		for _, t := range merged {
			w.rep.Merges++
			if w.mergedAt[t.id] != "" {
				w.bad("task %s merged twice: %s and %s", t.id, w.mergedAt[t.id], commit)
			}
			w.mergedAt[t.id] = commit
			gate := exec.Command("sh", "-c", t.gateCmd())
			gate.Dir = tmp
			if err := gate.Run(); err != nil {
				w.bad("task %s is merged at %s, where its gate %q fails", t.id, commit[:12], t.gateCmd())
			}
			work, _ := os.ReadFile(filepath.Join(tmp, "work-"+t.id+".txt"))
			if !attemptsWork(string(work)) || strings.TrimSpace(string(work)) == "" {
				w.bad("task %s is merged at %s with work-%s.txt %q: not the work of its attempts", t.id, commit[:12], t.id, work)
			}
		}
		_ = os.RemoveAll(tmp)
	}
}

// graphEnd checks a graph that ended with every task merged: each task's
// run ended well, no task worktree or branch is left, and the branch holds
// every task's work.
func (w *watch) graphEnd(ts []graphTask) {
	for _, t := range ts {
		st, err := harness.ReadState(w.statePath("tasks-" + t.id))
		if err != nil || (st.Status != "succeeded" && st.Status != "completed") {
			w.bad("task %s's run ended %q (%v)", t.id, st.Status, err)
		}
		if w.mergedAt[t.id] == "" {
			w.bad("task %s is in the graph's merged list but no commit of the branch brought its work", t.id)
		}
	}
	if b, _ := w.git("branch", "--list", "agentloop/*"); b != "" {
		w.bad("task branches left: %s", b)
	}
	if wts, _ := filepath.Glob(filepath.Join(w.dir, ".agentloop", "worktrees", "tasks", "*")); len(wts) > 0 {
		w.bad("task worktrees left: %v", wts)
	}
	if out, _ := w.git("worktree", "list", "--porcelain"); bytes.Count([]byte(out), []byte("worktree ")) > 1 {
		w.bad("git still lists task worktrees: %s", out)
	}
}
