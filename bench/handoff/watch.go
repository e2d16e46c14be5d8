package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
)

// watch drives one repository's sessions and checks what each left: the run
// folders, the attempts of each run it knows, the person's edits, the work
// tree and the exit codes.
type watch struct {
	c     *campaign
	dir   string // the repository
	name  string // the run's name (build; a graph's task runs are found by their state files)
	label string // "run 3", "graph 2"
	rep   *Report
	now   string // the session in progress, for problems

	files    map[string]fileSum // every file under .agentloop/runs/ as last seen
	edits    []edit
	named    map[string]bool   // refs a session named on the terminal
	traced   map[string]bool   // attempts whose checkpoints were checked, by ref prefix and seq
	runs     map[string]runOf  // every run seen, by name and run id
	runFile  map[string]string // the file an attempt of each run appends to (run id → path in the tree)
	checked  map[string]bool   // graphs: commits of the branch whose merges were checked
	log      strings.Builder   // every session's command, exit and output
	told     map[string]bool   // problems told
	stopLog  string            // what the last agentloop stop said
	stopped  string            // what ended the last session: SIGINT, SIGTERM, stop, SIGKILL, escalation, or its status
	mergedAt map[string]string // graphs: the commit that merged each task
}

// runOf is a run's name and its last state seen.
type runOf struct {
	name string
	st   harness.State
}

type fileSum struct {
	size int64
	sum  [32]byte
}

// edit is a change the person made between sessions: a line appended to a
// tracked file, or a new untracked file.
type edit struct {
	path, marker string
	tracked      bool
	session      int
	kept         bool // found in a named backup or cut ref once
}

func newWatch(c *campaign, dir, name, label string, rep *Report) *watch {
	return &watch{c: c, dir: dir, name: name, label: label, rep: rep, files: map[string]fileSum{}, named: map[string]bool{},
		traced: map[string]bool{}, runs: map[string]runOf{}, runFile: map[string]string{}, mergedAt: map[string]string{}, told: map[string]bool{}}
}

// bad notes a problem, once: a problem that lasts is told at the session
// that first showed it.
func (w *watch) bad(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if w.told[msg] {
		return
	}
	w.told[msg] = true
	p := w.label
	if w.now != "" {
		p += " " + w.now
	}
	w.rep.Problems = append(w.rep.Problems, p+": "+msg)
}

func (w *watch) statePath(name string) string {
	return filepath.Join(w.dir, ".agentloop", "state", name+".json")
}

func (w *watch) state() harness.State {
	st, err := harness.ReadState(w.statePath(w.name))
	if err != nil {
		w.bad("state: %v", err)
	}
	return st
}

// git runs git in the repository.
func (w *watch) git(args ...string) (string, error) { return harness.Git(w.dir, args...) }

// treeOf is the tree of a commit, "" when it has none.
func (w *watch) treeOf(commit string) string {
	if commit == "" {
		return ""
	}
	t, err := w.git("rev-parse", "-q", "--verify", commit+"^{tree}")
	if err != nil {
		return ""
	}
	return t
}

// worktree is the tree the work tree at dir holds now: what git add -A would
// commit, ignored files left out.
func worktree(dir string) (string, error) {
	gitDir, err := harness.Git(dir, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", err
	}
	idx := filepath.Join(gitDir, "handoff-check.idx")
	_ = os.Remove(idx)
	defer os.Remove(idx)
	run := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+idx)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %v: %v: %s", args, err, errb.String())
		}
		return strings.TrimSpace(out.String()), nil
	}
	if _, err := run("add", "-A"); err != nil {
		return "", err
	}
	return run("write-tree")
}

// userEdits makes the person's changes between sessions: a line appended to
// the tracked README.md, a new untracked notes file, both or neither.
func (w *watch) userEdits(rng *rand.Rand, session int) {
	if rng.IntN(3) == 0 {
		e := edit{path: "README.md", marker: fmt.Sprintf("edited by the person before session %d (%d)", session, rng.IntN(1e6)), tracked: true, session: session}
		if err := appendFile(filepath.Join(w.dir, e.path), e.marker+"\n"); err != nil {
			w.bad("edit %s: %v", e.path, err)
		}
		w.edits = append(w.edits, e)
	}
	if rng.IntN(3) == 0 {
		e := edit{path: fmt.Sprintf("notes-%d.txt", session), marker: fmt.Sprintf("notes written before session %d (%d)", session, rng.IntN(1e6)), session: session}
		if err := os.WriteFile(filepath.Join(w.dir, e.path), []byte(e.marker+"\n"), 0o644); err != nil {
			w.bad("write %s: %v", e.path, err)
		}
		w.edits = append(w.edits, e)
	}
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// exitCodes are the exit codes of a session that leaves each status.
var exitCodes = map[string]int{"succeeded": 0, "completed": 0, "aborted": 3, "escalated": 4, "interrupted": 130}

// session runs one session of the run and checks what it left. It reports
// whether the signal (if any) landed before the session ended by itself.
func (w *watch) session(ctx context.Context, n int, cmd command, sig syscall.Signal, at time.Duration) bool {
	before := w.state()
	preTree, err := worktree(w.dir)
	if err != nil {
		w.bad("tree before session %d: %v", n, err)
	}
	w.now = fmt.Sprintf("session %d (%s)", n, describe(cmd, sig, at))
	defer func() { w.now = "" }()
	w.rep.Sessions++
	w.rep.count(&w.rep.Commands, cmd.kind)
	if sig != 0 {
		w.rep.count(&w.rep.Signals, sigName(sig))
	}
	present := w.editsInTree()
	ss, ok := w.run(ctx, cmd.kind, sig, at, cmd.args(w.name)...)
	if !ok {
		return false
	}
	after := w.state()
	if cmd.kind == "resume" || cmd.kind == "guidance" {
		w.checkKept(present)
	}
	w.stopped = after.Status
	switch {
	case ss.Signal != 0:
		w.stopped = sigName(ss.Signal)
	case after.Status == "escalated":
		w.stopped = "escalation"
	}
	untouched := bytes.Equal(before.Raw, after.Raw)
	// A process that died of SIGINT or SIGTERM got it before agentloop
	// handled signals (the Go runtime starting): it must not have begun.
	died := ss.Code == -1 && !ss.Killed()
	end := after.Status
	switch {
	case ss.Killed():
		end = "killed"
	case died:
		end = "died of the signal as it started"
		if !untouched {
			w.bad("died of %s after it changed the state (the signal was not handled)", ss.Signal)
		}
	}
	w.rep.count(&w.rep.Ends, end)

	w.checkFiles()
	if after.RunID != "" {
		w.runs[w.name+"/"+after.RunID] = runOf{name: w.name, st: after}
		w.checkAttempts(w.name, after, ss.Killed() || died)
	}
	w.checkEdits()
	if ss.Killed() || died {
		w.settle()
		return true
	}
	want, known := exitCodes[after.Status]
	if cmd.kind == "abort" && after.Status == "aborted" {
		// The person's own --abort, done: 3 is for a run agentloop aborted
		// (its failure threshold or a budget).
		want = 0
	}
	switch {
	case ss.Code == 130 && untouched:
		// interrupted before it changed anything: the run is as it was
	case !known:
		w.bad("exit %d left the state %q: %s", ss.Code, after.Status, harness.LastLine(ss.Stderr))
	case ss.Code != want:
		w.bad("exit %d, but the state says %s (exit %d): %s", ss.Code, after.Status, want, harness.LastLine(ss.Stderr))
	}
	w.checkTree(cmd, ss, before, after, preTree, untouched)
	if ss.Signal == 0 && known && ss.Code == want {
		w.checkHandoff(w.name, cmd, before, after)
	}
	if after.Status == "escalated" {
		md := filepath.Join(runDir(w.dir, w.name, after.RunID), fmt.Sprintf("escalation-%03d.md", max(after.Segment, 1)))
		if _, err := os.Stat(md); err != nil {
			w.bad("escalated without its report: %v", err)
		}
	}
	return ss.Signal != 0
}

// settle waits, after a session was killed, for the agents it left running
// to end by themselves (the scripted agent's plan ends within a second), as
// a person would see them end before they touch the tree: the next session
// must find a tree no one else writes to, or the checks race the agent.
// run runs one session of agentloop with args, signalled with sig at at, and
// records what every session's check starts from: a signal that landed, a
// session that did not end, its log and the refs it named. It reports false
// when the session could not be run (said as an anomaly).
func (w *watch) run(ctx context.Context, kind string, sig syscall.Signal, at time.Duration, args ...string) (harness.Session, bool) {
	var ss harness.Session
	var err error
	if sig == stopSignal {
		ss, err = w.runStopped(ctx, at, args)
	} else {
		ss, err = w.c.Run(ctx, w.dir, sig, at, nil, args...)
	}
	if err != nil {
		w.bad("%v", err)
		return ss, false
	}
	if ss.Signal != 0 {
		w.rep.count(&w.rep.Landed, sigName(ss.Signal))
		w.now += " landed"
	}
	if ss.Stuck {
		w.bad("did not end within %s of %s: killed", harness.StopGrace, ss.Signal)
	}
	w.logSession(kind, ss)
	w.noteNamed(ss.Stderr)
	return ss, true
}

// runStopped runs a session and, at moment at, `agentloop stop NAME` beside
// it, as a person in another terminal would: the session's Signal is
// [stopSignal] when the stop was taken (it exited 0).
func (w *watch) runStopped(ctx context.Context, at time.Duration, args []string) (harness.Session, error) {
	taken := make(chan bool, 1)
	t := time.AfterFunc(at, func() {
		cmd := exec.CommandContext(ctx, w.c.Agentloop, "stop", w.name)
		cmd.Dir = w.dir
		out, err := cmd.CombinedOutput()
		w.stopLog = fmt.Sprintf("agentloop stop at %s: %v: %s", at.Round(time.Millisecond), err, out)
		taken <- err == nil
	})
	ss, err := w.c.Run(ctx, w.dir, 0, 0, nil, args...)
	if t.Stop() {
		return ss, err // the session ended first: no stop
	}
	if <-taken {
		ss.Signal = stopSignal
	}
	fmt.Fprintf(&w.log, "--- %s\n", w.stopLog)
	return ss, err
}

func (w *watch) settle() {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if len(w.c.AgentsUnder(w.dir)) == 0 {
			return
		}
	}
	w.bad("agents of a killed session still run 30 s after it: %v", w.c.AgentsUnder(w.dir))
}

// logSession keeps what a session printed, for a repository kept after an
// anomaly, and how long it took when it ended by itself.
func (w *watch) logSession(kind string, ss harness.Session) {
	if ss.Signal == 0 && w.c != nil {
		w.c.tookFor(kind, ss.Duration)
	}
	fmt.Fprintf(&w.log, "=== %s: exit %d after %s\n%s", w.now, ss.Code, ss.Duration.Round(time.Millisecond), ss.Stderr)
	if ss.Stdout != "" {
		fmt.Fprintf(&w.log, "--- stdout\n%s", ss.Stdout)
	}
	w.log.WriteString("\n")
}

func describe(cmd command, sig syscall.Signal, at time.Duration) string {
	s := cmd.kind
	if cmd.text != "" {
		s += " " + strconv.Quote(cmd.text)
	}
	if sig != 0 {
		s += fmt.Sprintf(", %s at %s", sigName(sig), at.Round(time.Millisecond))
	}
	return s
}

var namedRef = regexp.MustCompile(`refs/agentloop/[^ :;,'"]+/(?:backup-\d+|iter-\d+-cut)`)

func (w *watch) noteNamed(stderr string) {
	for _, r := range namedRef.FindAllString(stderr, -1) {
		w.named[r] = true
	}
}

// checkFiles hashes every file under .agentloop/runs/: a file seen before is
// identical, or grew by appending when it is a log (.jsonl, agent.log); none
// is removed. The marker of an attempt in progress is not history.
func (w *watch) checkFiles() {
	root := filepath.Join(w.dir, ".agentloop", "runs")
	seen := map[string]bool{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if filepath.Base(rel) == "inflight.json" {
			return nil
		}
		seen[rel] = true
		b, err := os.ReadFile(path)
		if err != nil {
			w.bad("read %s: %v", rel, err)
			return nil
		}
		old, ok := w.files[rel]
		switch {
		case !ok:
		case int64(len(b)) < old.size:
			w.bad("runs/%s shrank from %d to %d bytes", rel, old.size, len(b))
		case sha256.Sum256(b[:old.size]) != old.sum:
			w.bad("runs/%s was written over (its first %d bytes changed)", rel, old.size)
		case int64(len(b)) > old.size && !grows(rel):
			w.bad("runs/%s grew from %d to %d bytes", rel, old.size, len(b))
		}
		w.files[rel] = fileSum{size: int64(len(b)), sum: sha256.Sum256(b)}
		return nil
	})
	for rel := range w.files {
		if !seen[rel] {
			w.bad("runs/%s was removed", rel)
			delete(w.files, rel)
		}
	}
}

// grows reports whether a run folder's file is a log appended to.
func grows(rel string) bool {
	return strings.HasSuffix(rel, ".jsonl") || filepath.Base(rel) == "agent.log"
}

var iterDir = regexp.MustCompile(`^iter-(\d{3,})$`)

// checkAttempts checks a run's attempts: each of 1..attempts recorded once
// (as a record or a cut) in history.jsonl up to what the state counts, the
// folders iter-001..iter-N exactly (one more after a kill: the attempt it
// cut, which the next session records), each attempt's spend what its
// agent.log tells and the run's spend their sum, and each attempt's refs.
func (w *watch) checkAttempts(name string, st harness.State, killed bool) {
	rd := runDir(w.dir, name, st.RunID)
	h, err := harness.ReadHistory(filepath.Join(rd, "history.jsonl"))
	if err != nil {
		w.bad("%s history: %v", name, err)
		return
	}
	seqs := map[int]int{}
	var sum harness.Usage
	look := func(kind string, list map[int]harness.Attempt, n int) []harness.Attempt {
		var out []harness.Attempt
		for i := 1; i <= n; i++ {
			a, ok := list[i]
			if !ok {
				w.bad("%s: history.jsonl lacks %s %d, which the state counts", name, kind, i)
				continue
			}
			seqs[a.Seq]++
			sum.In += a.Usage.In
			sum.Out += a.Usage.Out
			sum.Cost += a.Usage.Cost
			out = append(out, a)
		}
		return out
	}
	records := look("record", h.Records, st.Logged.History)
	cuts := look("cut", h.Cuts, st.Logged.Interrupted)
	for i := 1; i <= st.Logged.Handoffs; i++ {
		if _, ok := h.Handoffs[i]; !ok {
			w.bad("%s: history.jsonl lacks hand-off %d, which the state counts", name, i)
		}
	}
	for s := 1; s <= st.Attempts; s++ {
		if seqs[s] != 1 {
			w.bad("%s: attempt %d is recorded %d times (records and cuts)", name, s, seqs[s])
		}
	}
	for s, k := range seqs {
		if s < 1 || s > st.Attempts {
			w.bad("%s: attempt %d recorded %d times, beyond the state's %d attempts", name, s, k, st.Attempts)
		}
	}
	if math.Abs(sum.Cost-st.Spend.Usage.Cost) > 1e-6 || sum.In != st.Spend.Usage.In || sum.Out != st.Spend.Usage.Out {
		w.bad("%s: the run's spend is %d+%d tokens $%.4f, its attempts' sum %d+%d tokens $%.4f", name, st.Spend.Usage.In, st.Spend.Usage.Out, st.Spend.Usage.Cost, sum.In, sum.Out, sum.Cost)
	}
	// folders
	entries, _ := os.ReadDir(rd)
	folders := map[int]bool{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "iter-") {
			continue
		}
		m := iterDir.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			w.bad("%s: unexpected %s in the run folder", name, e.Name())
			continue
		}
		n, _ := strconv.Atoi(m[1])
		folders[n] = true
	}
	for s := 1; s <= st.Attempts; s++ {
		if !folders[s] {
			w.bad("%s: attempt %d has no folder", name, s)
		}
	}
	for n := range folders {
		if n > st.Attempts && !(killed && n == st.Attempts+1) {
			w.bad("%s: folder iter-%03d beyond the state's %d attempts", name, n, st.Attempts)
		}
	}
	// spend of each attempt, refs and the work it did
	prefix := "refs/agentloop/" + name + "/" + st.RunID + "/"
	for _, a := range records {
		w.checkSpend(name, rd, a)
		if a.Checkpoint != "" {
			if got, _ := w.git("rev-parse", "-q", "--verify", prefix+fmt.Sprintf("iter-%d", a.Seq)); got != a.Checkpoint {
				w.bad("%s: ref iter-%d is %q, the record's checkpoint %s", name, a.Seq, got, a.Checkpoint)
			}
		}
		w.trace(name, prefix, a.Seq, st.RunID)
	}
	for _, a := range cuts {
		w.checkSpend(name, rd, a)
		if a.Cut != "" {
			if got, _ := w.git("rev-parse", "-q", "--verify", prefix+fmt.Sprintf("iter-%d-cut", a.Seq)); got != a.Cut {
				w.bad("%s: ref iter-%d-cut is %q, the cut's checkpoint %s", name, a.Seq, got, a.Cut)
			}
		}
	}
}

// partialCost is what an attempt cut after the agent's first message and
// before its result costs: its tokens at agentloop's price of the model.
var partialCost = agent.Estimate(evidence.Usage{InputTokens: 1000, OutputTokens: 10, TokensKnown: true, Model: "claude-sonnet-4-5"}, agent.DefaultPrices()).CostUSD

// checkSpend compares an attempt's recorded tokens and cost with what its
// agent.log tells: the result line gives tokens and cost, the assistant line
// alone tokens (priced by agentloop), neither nothing.
func (w *watch) checkSpend(name, rd string, a harness.Attempt) {
	log, _ := os.ReadFile(filepath.Join(rd, fmt.Sprintf("iter-%03d", a.Seq), "agent.log"))
	var want harness.Usage
	switch {
	case bytes.Contains(log, []byte(resultLine)):
		want = harness.Usage{In: 1000, Out: 10, Cost: 0.01}
	case bytes.Contains(log, []byte(usageLine)):
		want = harness.Usage{In: 1000, Out: 10, Cost: partialCost}
	}
	got := a.Usage
	if got.In != want.In || got.Out != want.Out || math.Abs(got.Cost-want.Cost) > 1e-9 {
		w.bad("%s: attempt %d counts %d+%d tokens $%.4f, its agent.log tells %d+%d tokens $%.4f", name, a.Seq, got.In, got.Out, got.Cost, want.In, want.Out, want.Cost)
	}
}

// trace checks a recorded attempt's checkpoints once: it started from a tree
// whose work file holds the work of the attempts before it — whole ones, and
// what a cut one left when a resume kept it (a lone x) — and its checkpoint
// holds one attempt's work more.
func (w *watch) trace(name, prefix string, seq int, runID string) {
	key := prefix + strconv.Itoa(seq)
	if w.traced[key] {
		return
	}
	w.traced[key] = true
	file := w.runFile[runID]
	if file == "" {
		file = "work.txt"
	}
	show := func(ref string) (string, bool) {
		out, err := w.git("show", ref+":"+file)
		if err != nil {
			if _, err := w.git("rev-parse", "-q", "--verify", ref); err != nil {
				return "", false
			}
			return "", true // the ref is there, the file not yet
		}
		return out, true
	}
	start, ok1 := show(prefix + fmt.Sprintf("iter-%d-start", seq))
	end, ok2 := show(prefix + fmt.Sprintf("iter-%d", seq))
	if !ok1 || !ok2 {
		w.bad("%s: attempt %d lacks a checkpoint ref (start %v, end %v)", name, seq, ok1, ok2)
		return
	}
	if !attemptsWork(start) {
		w.bad("%s: attempt %d started from a tree whose %s is not the work of the attempts before it (whole ones, and what cut ones left): %q", name, seq, file, start)
	}
	if want := strings.TrimPrefix(start+"\nx\ny", "\n"); end != want {
		w.bad("%s: attempt %d's checkpoint has %s %q, want %q (one attempt's work more than its start)", name, seq, file, end, want)
	}
}

// editsInTree are the person's edits the work tree holds now.
func (w *watch) editsInTree() []*edit {
	var in []*edit
	for i := range w.edits {
		e := &w.edits[i]
		if b, _ := os.ReadFile(filepath.Join(w.dir, e.path)); bytes.Contains(b, []byte(e.marker)) {
			in = append(in, e)
		}
	}
	return in
}

// checkKept checks, after a resume (or guidance) whose session began with the
// person's edits present in the work tree, that the tree still holds every
// one: a resume starts from the tree as the person left it, and the loop's
// later rollbacks count from there. Only resume --undo-cut and accept may
// move them to a backup ref.
func (w *watch) checkKept(present []*edit) {
	if len(present) == 0 {
		return
	}
	stop := cmp.Or(w.stopped, "none")
	w.rep.count(&w.rep.AfterStop, stop)
	for _, e := range present {
		b, _ := os.ReadFile(filepath.Join(w.dir, e.path))
		if !bytes.Contains(b, []byte(e.marker)) {
			w.bad("resumed after %s, the work tree lost the person's %s (%q, before session %d)", stop, e.path, e.marker, e.session)
			continue
		}
		w.rep.count(&w.rep.KeptAfterStop, stop)
	}
}

// sigName names a signal of the campaign, stop for [stopSignal].
func sigName(sig syscall.Signal) string {
	if sig == stopSignal {
		return "stop"
	}
	return sig.String()
}

// checkEdits finds each of the person's edits in the work tree or in a
// backup or cut ref a session named.
func (w *watch) checkEdits() {
	var missing []*edit
	for i := range w.edits {
		e := &w.edits[i]
		b, _ := os.ReadFile(filepath.Join(w.dir, e.path))
		if !bytes.Contains(b, []byte(e.marker)) {
			missing = append(missing, e)
		}
	}
	if len(missing) == 0 {
		return
	}
	refs, _ := w.git("for-each-ref", "--format=%(refname)", "refs/agentloop/")
	all := strings.Fields(refs)
	for _, e := range missing {
		var in []string
		if len(all) > 0 {
			out, _ := w.git(append([]string{"grep", "-l", "-F", "-e", e.marker}, append(all, "--", e.path)...)...)
			for _, l := range strings.Fields(out) {
				if ref, _, ok := strings.Cut(l, ":"); ok {
					in = append(in, ref)
				}
			}
		}
		named := slices.ContainsFunc(in, func(r string) bool { return w.named[r] })
		switch {
		case named:
			if !e.kept {
				e.kept = true
				w.rep.KeptInRef++
			}
		case len(in) > 0:
			w.bad("the person's %s (%q, before session %d) is not in the work tree; only in %s, which no session named", e.path, e.marker, e.session, strings.Join(in, " "))
		default:
			w.bad("the person's %s (%q, before session %d) is lost: not in the work tree nor in any ref", e.path, e.marker, e.session)
		}
	}
}

// checkTree compares the work tree after a session that ended by itself (or
// after SIGINT or SIGTERM) with the checkpoint it should be at.
func (w *watch) checkTree(cmd command, ss harness.Session, before, after harness.State, preTree string, untouched bool) {
	cur, err := worktree(w.dir)
	if err != nil {
		w.bad("tree: %v", err)
		return
	}
	var want []string
	what := ""
	switch {
	case untouched || ss.Code == 1 || ss.Code == 2:
		want, what = []string{preTree}, "the tree before the session (it changed nothing)"
	case cmd.kind == "abort":
		want, what = []string{preTree}, "the tree as it was (abort leaves it)"
	case cmd.kind == "accept" && before.Best != nil && before.Best.Ref != "":
		want, what = []string{w.treeOf(before.Best.Ref)}, "the best checkpoint "+before.Best.Ref
		if after.Tree != before.Best.Ref {
			w.bad("accept: the state's tree is %s, not the best checkpoint %s", after.Tree, before.Best.Ref)
		}
	case cmd.kind == "accept":
		want, what = []string{preTree}, "the tree as it was (no best checkpoint to accept)"
	case after.Tree == "":
		// No checkpoint taken yet (a signal before the first attempt's start
		// snapshot): agentloop changed nothing in the tree.
		want, what = []string{preTree}, "the tree before the session (the state records no checkpoint yet)"
	default:
		want, what = []string{w.treeOf(after.Tree)}, "the state's tree "+after.Tree
		if after.RunID == before.RunID && w.noAgentRan(before, after) {
			// no attempt ran, or only ones cut before their start checkpoint
			// (their agent never started): the tree may be as it was, or
			// where a restore put it
			want = append(want, preTree)
			what += " or the tree before the session"
		}
	}
	if !slices.Contains(want, cur) {
		diff, _ := w.git("diff", "--stat", want[0], cur)
		w.bad("the work tree is %s, want %s: %s", cur, what, strings.ReplaceAll(diff, "\n", "; "))
	}
}

// noAgentRan reports whether every attempt a session started was cut before
// its start checkpoint (a signal as it started: its agent never ran); true
// when it started none.
func (w *watch) noAgentRan(before, after harness.State) bool {
	if after.Attempts == before.Attempts {
		return true
	}
	h, _ := harness.ReadHistory(filepath.Join(runDir(w.dir, w.name, after.RunID), "history.jsonl"))
	cut := map[int]harness.Attempt{}
	for _, a := range h.Cuts {
		cut[a.Seq] = a
	}
	for seq := before.Attempts + 1; seq <= after.Attempts; seq++ {
		if a, ok := cut[seq]; !ok || a.Start != "" {
			return false
		}
	}
	return true
}

// checkHandoff checks that a session that ended by itself recorded its
// hand-off in the history of the run name, guidance with its text.
func (w *watch) checkHandoff(name string, cmd command, before, after harness.State) {
	h, _ := harness.ReadHistory(filepath.Join(runDir(w.dir, name, after.RunID), "history.jsonl"))
	first := 1
	if after.RunID == before.RunID {
		first = before.Logged.Handoffs + 1
	}
	kind := map[string]string{"run": "start", "task-guidance": "guidance", "undo-cut": "resume"}[cmd.kind]
	if kind == "" {
		kind = cmd.kind
	}
	got, ok := h.Handoffs[first]
	switch {
	case after.Logged.Handoffs < first || !ok:
		w.bad("%s: no hand-off recorded (the state counts %d, %d before)", name, after.Logged.Handoffs, first-1)
	case got.Kind != kind || got.Text != cmd.text:
		w.bad("%s: hand-off %d is %s %q, want %s %q", name, first, got.Kind, got.Text, kind, cmd.text)
	}
}

// end checks the runs' last states and adds up what their histories hold.
func (w *watch) end() {
	for _, r := range w.runs {
		st := r.st
		rd := runDir(w.dir, r.name, st.RunID)
		h, _ := harness.ReadHistory(filepath.Join(rd, "history.jsonl"))
		events := handoffEvents(filepath.Join(rd, "events.jsonl"))
		for i := 1; i <= st.Logged.Handoffs; i++ {
			ho := h.Handoffs[i]
			w.rep.count(&w.rep.Handoffs, ho.Kind)
			if events[ho.Kind+"\x00"+ho.Text] == 0 {
				w.bad("%s %s: hand-off %d (%s %q) has no event in events.jsonl", r.name, st.RunID, i, ho.Kind, ho.Text)
			}
		}
		// Each escalation has a report of its own.
		reports, _ := filepath.Glob(filepath.Join(rd, "escalation-*.md"))
		if n := eventCount(filepath.Join(rd, "events.jsonl"), "escalated"); n > len(reports) {
			w.bad("%s %s escalated %d times and has %d escalation reports", r.name, st.RunID, n, len(reports))
		}
		w.rep.Attempts += st.Attempts
		w.rep.Cuts += st.Logged.Interrupted
		if st.Status == "running" || st.Status == "interrupted" {
			w.rep.Unfinished++
			w.bad("%s %s did not end: %s", r.name, st.RunID, st.Status)
		}
	}
	refs, _ := w.git("for-each-ref", "--format=%(refname)", "refs/agentloop/")
	for _, r := range strings.Fields(refs) {
		if strings.Contains(r, "/backup-") {
			w.rep.Backups++
		}
	}
	w.rep.Edits += len(w.edits)
}

// attemptsWork reports whether a work file is as the scripted agent's
// attempts leave it: whole attempts ("x", "y") and what cut ones left (a lone
// "x", kept by a resume). A "y" without its "x", or another line, is not.
func attemptsWork(s string) bool {
	open := false
	for _, l := range strings.Fields(s) {
		switch {
		case l == "x":
			open = true
		case l == "y" && open:
			open = false
		default:
			return false
		}
	}
	return true
}
