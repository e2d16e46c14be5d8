package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/bench/internal/harness"
)

// Report is what a campaign did and found.
type Report struct {
	Runs, Sessions int
	// Commands counts the sessions by what the person asked: run, resume,
	// guidance, accept, abort; for graphs also graph (run --tasks) and
	// task-guidance (resume GRAPH-TASK --guidance).
	Commands map[string]int
	// Handoffs counts the hand-offs the runs' histories hold at their end, by
	// kind (start, resume, guidance, accept, abort).
	Handoffs map[string]int
	// Signals counts the signals sent, by name; Landed those sent before the
	// session ended by itself.
	Signals, Landed map[string]int
	Ends            map[string]int // sessions by the status they left
	Attempts        int            // agent attempts recorded (records and cuts)
	Cuts            int            // of which cut short
	Edits           int            // the person's edits and new files between sessions
	KeptInRef       int            // edits found in a backup or cut ref, not in the tree
	// AfterStop counts the resumes (resume, guidance) that began with some
	// of the person's edits in the work tree, by what stopped the session
	// before: SIGINT, SIGTERM, stop (agentloop stop), SIGKILL, escalation,
	// or how else it ended; KeptAfterStop the edits each found still in the
	// tree after it (all, or an anomaly is told).
	AfterStop, KeptAfterStop map[string]int
	Backups                  int // backup refs made
	Merges                   int // graphs: tasks merged
	Refused                  int // graphs: sessions with a merge refused for the person's edits
	Unfinished               int // runs or graphs not ended after their sessions
	Anomalies                int
	Problems                 []string
}

func (r *Report) add(o Report) {
	r.Runs += o.Runs
	r.Sessions += o.Sessions
	for _, m := range []struct{ to, from *map[string]int }{{&r.Commands, &o.Commands}, {&r.Handoffs, &o.Handoffs}, {&r.Signals, &o.Signals}, {&r.Landed, &o.Landed}, {&r.Ends, &o.Ends}, {&r.AfterStop, &o.AfterStop}, {&r.KeptAfterStop, &o.KeptAfterStop}} {
		if *m.to == nil {
			*m.to = map[string]int{}
		}
		for k, v := range *m.from {
			(*m.to)[k] += v
		}
	}
	r.Attempts += o.Attempts
	r.Cuts += o.Cuts
	r.Edits += o.Edits
	r.KeptInRef += o.KeptInRef
	r.Backups += o.Backups
	r.Merges += o.Merges
	r.Refused += o.Refused
	r.Unfinished += o.Unfinished
	r.Anomalies += len(o.Problems)
	r.Problems = append(r.Problems, o.Problems...)
}

func (r *Report) count(m *map[string]int, k string) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k]++
}

func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d, sessions %d, agent attempts %d (%d cut short), edits by the person %d (%d found kept in a backup or cut ref), backup refs %d",
		r.Runs, r.Sessions, r.Attempts, r.Cuts, r.Edits, r.KeptInRef, r.Backups)
	if r.Merges > 0 || r.Refused > 0 {
		fmt.Fprintf(&b, ", tasks merged %d, sessions with a merge refused %d", r.Merges, r.Refused)
	}
	fmt.Fprintf(&b, ", unfinished %d, anomalies %d\n", r.Unfinished, r.Anomalies)
	fmt.Fprintf(&b, "  commands: %s\n  hand-offs recorded: %s\n  signals sent: %s; landed before the session ended: %s\n  sessions ended: %s\n",
		counts(r.Commands), counts(r.Handoffs), counts(r.Signals), counts(r.Landed), counts(r.Ends))
	fmt.Fprintf(&b, "  resumes with the person's edits in the tree, by what stopped the run: %s; edits still in the tree after them: %s\n",
		counts(r.AfterStop), counts(r.KeptAfterStop))
	for _, p := range r.Problems {
		b.WriteString("  " + p + "\n")
	}
	return b.String()
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

type campaign struct {
	*harness.Bin
	seed     uint64
	window   time.Duration
	progress io.Writer // a line per run or graph that ends; nil: none
	first    int       // the index of the first run and graph
	keep     string    // where to keep the repository of a run or graph with an anomaly; "": nowhere
	mu       sync.Mutex
	took     map[string][]time.Duration // the last sessions of each kind that ended by themselves
}

// windowFor is the signal window of a session of a kind: a quarter longer
// than the longest of the last sessions of that kind that ended by
// themselves, so that a signal lands in most sessions whatever their length
// (an accept takes a fraction of a second, a run several seconds); the
// measured window until three are known.
func (c *campaign) windowFor(kind string) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.took[kind]
	if len(last) < 3 {
		if kind == "graph" || kind == "task-guidance" {
			return 2 * c.window
		}
		return c.window
	}
	return slices.Max(last) * 5 / 4
}

// tookFor notes the time a session of a kind took to end by itself.
func (c *campaign) tookFor(kind string, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.took == nil {
		c.took = map[string][]time.Duration{}
	}
	last := append(c.took[kind], d)
	if len(last) > 20 {
		last = last[1:]
	}
	c.took[kind] = last
}

// done removes a run's or graph's repository, or keeps it (moved into the
// keep folder with its sessions' log) when it had an anomaly.
func (c *campaign) done(w *watch) {
	if c.keep == "" || len(w.rep.Problems) == 0 {
		_ = os.RemoveAll(w.dir)
		return
	}
	to := filepath.Join(c.keep, filepath.Base(w.dir))
	_ = os.MkdirAll(c.keep, 0o755)
	_ = os.RemoveAll(to)
	if err := os.Rename(w.dir, to); err != nil {
		fmt.Fprintf(os.Stderr, "keep %s: %v\n", w.dir, err)
		return
	}
	_ = os.WriteFile(filepath.Join(to, "sessions.log"), []byte(w.log.String()+"\nproblems:\n"+strings.Join(w.rep.Problems, "\n")+"\n"), 0o644)
}

// newCampaign builds agentloop and the scripted agent and measures the signal
// window: the time of a run to its first escalation.
func newCampaign(seed uint64, window time.Duration) (*campaign, error) {
	bin, err := harness.Build("agentloop-handoff-")
	if err != nil {
		return nil, err
	}
	c := &campaign{Bin: bin, seed: seed, window: window}
	if c.window == 0 {
		repo := func(dir string) error { return c.repo(dir, true, 2) }
		if c.window, err = c.Calibrate(repo, "run", "-q"); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// usageLine and resultLine are the scripted agent's Claude stream-json: an
// assistant message with its usage as it starts, the result with the same
// usage and its cost as it ends. An attempt cut between them spent tokens of
// unknown cost; one cut before the first spent nothing agentloop can know.
const (
	usageLine  = `{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":1000,"output_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"session_id":"s"}`
	resultLine = `{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done","session_id":"s","total_cost_usd":0.01,"usage":{"input_tokens":1000,"output_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`
	// fixText in a prompt (a person's guidance) makes the agent create the
	// file the gate wants.
	fixText = "create fixed.txt now"
)

// agentPlan is a scripted agent's plan: each attempt appends "x" and "y" to
// file with a pause between them (an attempt cut there and not undone leaves
// a lone x), and creates marker when its prompt holds fix.
func agentPlan(file, fix, marker string) string {
	body := func(extra string) string {
		return "print " + usageLine + "\nappend " + file + " x\\n\nsleep 200ms\n" + extra + "append " + file + " y\\n\nprint " + resultLine + "\n"
	}
	return "[prompt " + fix + "]\n" + body("write "+marker+" done\n") + "[*]\n" + body("")
}

// repo makes a run's repository: with gate, its gate wants fixed.txt, which
// the agent creates only when a person's guidance tells it to; without, the
// run completes at its iteration limit.
func (c *campaign) repo(dir string, gate bool, maxIter int) error {
	proc := fmt.Sprintf("default: build\nprocedures:\n  build:\n    agent: {cmd: [%q], format: claude-stream-json, env: {FAKEAGENT_PLAN: plan.txt, FAKEAGENT_DIR: .fa}}\n    limits: {max_iterations: %d, failure_threshold: 5}\n", c.Fakeagent, maxIter)
	if gate {
		proc += "    gates: [{name: check, run: \"test -f fixed.txt\"}]\n"
	}
	return harness.WriteRepo(dir, map[string]string{
		".gitignore":     ".agentloop/\n.fa/\n",
		"README.md":      "a project\n",
		"plan.txt":       agentPlan("work.txt", fixText, "fixed.txt"),
		"agentloop.yaml": proc,
	})
}

// runs drives n runs, parallel at a time, and adds up what they found.
func (c *campaign) runs(ctx context.Context, n, parallel int) Report {
	var rep Report
	done := 0
	harness.Each(n, parallel, func(i int) {
		r := c.oneRun(ctx, i)
		c.mu.Lock()
		defer c.mu.Unlock()
		rep.add(r)
		done++
		if c.progress != nil {
			fmt.Fprintf(c.progress, "run %d ended (%d/%d): %d sessions (%s), %d attempts; so far %d sessions, %d anomalies\n",
				i+c.first, done, n, r.Sessions, counts(r.Commands), r.Attempts, rep.Sessions, rep.Anomalies)
			for _, p := range r.Problems {
				fmt.Fprintf(c.progress, "  %s\n", p)
			}
		}
	})
	return rep
}

// maxSessions bounds a run's random sessions; then it is driven to its end
// without signals.
const maxSessions = 12

// oneRun drives run i through a random sequence of sessions, checking after
// each, until it ends.
func (c *campaign) oneRun(ctx context.Context, i int) Report {
	i += c.first
	rng := rand.New(rand.NewPCG(c.seed, uint64(i)))
	rep := Report{Runs: 1}
	dir := filepath.Join(c.Root, fmt.Sprintf("run-%d", i))
	w := newWatch(c, dir, "build", fmt.Sprintf("run %d", i), &rep)
	gate := rng.IntN(4) > 0
	if err := c.repo(dir, gate, 2+rng.IntN(2)); err != nil {
		w.bad("set up: %v", err)
		return rep
	}
	defer c.done(w)
	sampler := c.Sample(dir)
	reruns := 0
	signalled := 0
	for s := 0; ; s++ {
		st := w.state()
		final := s >= maxSessions
		var cmd command
		switch st.Status {
		case "":
			cmd = command{kind: "run"}
		case "running", "interrupted":
			cmd = pick(rng, final, []weighted{{6, command{kind: "resume"}}, {1, command{kind: "undo-cut"}}, {2, guidance(rng, s, true)}, {1, guidance(rng, s, false)}})
		case "escalated":
			cmd = pick(rng, final, []weighted{{3, guidance(rng, s, true)}, {4, guidance(rng, s, false)}, {2, command{kind: "accept"}}, {1, command{kind: "abort"}}})
		case "aborted":
			cmd = pick(rng, final, []weighted{{4, command{}}, {3, command{kind: "resume"}}, {3, guidance(rng, s, true)}})
		case "succeeded", "completed":
			if reruns < 2 && !final && rng.IntN(3) == 0 {
				reruns++
				cmd = command{kind: "run"} // a new run of the same name
			}
		}
		if cmd.kind == "" {
			break
		}
		if s >= 3*maxSessions {
			rep.Unfinished = 1
			w.bad("not ended after %d sessions: %s", s, st.Status)
			break
		}
		if s > 0 {
			w.userEdits(rng, s)
		}
		var sig syscall.Signal
		if !final {
			sig = []syscall.Signal{0, 0, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL, stopSignal}[rng.IntN(6)]
		}
		at := harness.Moment(rng, harness.Widen(c.windowFor(cmd.kind), signalled))
		if w.session(ctx, s, cmd, sig, at) {
			signalled++
		}
	}
	if most := sampler.Stop(); most > 1 {
		w.bad("%d agents ran at once", most)
	}
	if left := c.AgentsUnder(dir); len(left) > 0 {
		w.bad("agents left running after the run ended: %v", left)
		for _, pid := range left {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	}
	w.end()
	return rep
}

// stopSignal stands for `agentloop stop NAME` run beside the session at the
// signal's moment: the run ends interrupted after its current iteration.
const stopSignal = syscall.Signal(-1)

// command is what a person runs in a session.
type command struct {
	kind string // run, resume, undo-cut (resume --undo-cut), guidance, accept, abort; graph, task-guidance
	text string // the guidance
	task string // task-guidance: the task
}

func (c command) args(name string) []string {
	switch c.kind {
	case "run":
		return []string{"run", "-q"}
	case "resume":
		return []string{"resume", name, "-q"}
	case "guidance":
		return []string{"resume", name, "--guidance", c.text, "-q"}
	}
	return []string{"resume", name, "--" + c.kind, "-q"}
}

// guidance is an answer that fixes the gate or one that does not.
func guidance(rng *rand.Rand, session int, fix bool) command {
	text := fmt.Sprintf("answer %d-%d: keep looking", session, rng.IntN(1000))
	if fix {
		text = fmt.Sprintf("answer %d-%d: %s", session, rng.IntN(1000), fixText)
	}
	return command{kind: "guidance", text: text}
}

type weighted struct {
	w int
	c command
}

// pick draws a command by weight; when final (the run must end now), only
// what ends it: accept an escalated run, resume an interrupted one, leave an
// aborted one.
func pick(rng *rand.Rand, final bool, opts []weighted) command {
	if final {
		for _, o := range opts {
			if o.c.kind == "accept" || o.c.kind == "resume" && opts[0].c.kind == "resume" {
				return o.c
			}
		}
		return command{}
	}
	total := 0
	for _, o := range opts {
		total += o.w
	}
	k := rng.IntN(total)
	for _, o := range opts {
		if k < o.w {
			return o.c
		}
		k -= o.w
	}
	return opts[len(opts)-1].c
}
