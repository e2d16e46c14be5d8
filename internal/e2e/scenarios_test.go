package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/testenv"
)

// Each CLI edits the file with its own shell tool, the gate passes, and the
// tokens recorded are what the double served.
func TestSuccess(t *testing.T) {
	need(t)
	t.Parallel() // every scenario of the tier shares -parallel
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := &agent{cli: c, name: c.name, srv: serve(t, editScenario), result: "success"}
			l := &loop{dir: repo(t), main: a}
			o := l.run(t)
			if o.code != 0 || o.report.Summary.Status != "succeeded" || !fixed(t, l.dir) {
				t.Fatalf("want a success with calc.go fixed; %s", o)
			}
			checkUsage(t, o, a)
		})
	}
}

// A 429 that clears: the first request of the edit turn is rate limited for a
// second. That is no failed iteration: the run succeeds in one.
func TestRateLimitClears(t *testing.T) {
	need(t)
	t.Parallel() // every scenario of the tier shares -parallel
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := &agent{cli: c, name: c.name, srv: serve(t, rateLimitedOnceScenario), result: "ratelimit-once"}
			l := &loop{dir: repo(t), main: a}
			o := l.run(t)
			if o.code != 0 || o.report.Summary.Status != "succeeded" || o.report.Summary.Iterations != 1 {
				t.Fatalf("want a success in one iteration; %s", o)
			}
			if strings.Contains((o.stdout + o.stderr), "consecutive failure") {
				t.Errorf("a cleared rate limit was counted as a failure; %s", o)
			}
			// Claude Code says when it retries (api_retry): shown and recorded.
			if c.name == "claude" && !strings.Contains(o.stdout+o.stderr, "claude: rate limited, retry 1/2") {
				t.Errorf("claude's retry of the 429 is not shown; %s", o)
			}
			checkUsage(t, o, a)
		})
	}
}

// A 429 that never clears: the agent's wait passes the limit, the fallback
// agent (another real CLI) takes over, is rate limited too, and the run stops
// as aborted saying so — not as failed iterations.
func TestRateLimitNeverClears(t *testing.T) {
	need(t)
	t.Parallel()
	main := &agent{cli: lookupCLI("codex"), name: "codex", srv: serve(t, rateLimitedScenario), result: "ratelimit-always"}
	fb := &agent{cli: lookupCLI("claude"), name: "claude", srv: serve(t, rateLimitedScenario), result: "ratelimit-always"}
	l := &loop{dir: repo(t), main: main, fallback: []*agent{fb}, env: []string{"AGENTLOOP_RATE_LIMIT_MAX_WAIT=2s"}}
	o := l.run(t)
	if modelRequests(main.srv) == 0 || modelRequests(fb.srv) == 0 {
		t.Fatalf("want both agents tried: main %d requests, fallback %d; %s", modelRequests(main.srv), modelRequests(fb.srv), o)
	}
	if o.code != 3 || o.report.Summary.Status != "aborted" {
		t.Fatalf("want exit 3 (aborted); %s", o)
	}
	for _, want := range []string{"switching to the fallback agent claude", "rate limited", "no fallback agent left"} {
		if !strings.Contains((o.stdout + o.stderr), want) {
			t.Errorf("the output does not say %q; %s", want, o)
		}
	}
	if strings.Contains((o.stdout+o.stderr), "consecutive failure") || strings.Contains((o.stdout+o.stderr), "gate") && strings.Contains((o.stdout+o.stderr), "to fix") {
		t.Errorf("a rate limit was reported as failed iterations; %s", o)
	}
}

// A bad API key (401): the run stops at once with exit 2 and the CLI's own
// message; no second try, no escalation about gates.
// (Copilot CLI retries a provider's 401 twice over about two minutes before it
// gives up. Claude Code retries it ten times over about three minutes, saying
// so in api_retry events: agentloop ends it at the first, so here it keeps its
// default retries.)
func TestBadKey(t *testing.T) {
	need(t)
	t.Parallel() // every scenario of the tier shares -parallel
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := &agent{cli: c, name: c.name, srv: serve(t, badKeyScenario), result: "401",
				setup: func(env map[string]string) { delete(env, "CLAUDE_CODE_MAX_RETRIES") }}
			l := &loop{dir: repo(t), main: a}
			start := time.Now()
			o := l.run(t)
			if c.name == "claude" && time.Since(start) > 90*time.Second {
				t.Errorf("claude's 401 took %s: it was not ended at its first retry", time.Since(start).Round(time.Second))
			}
			if o.code != 2 {
				t.Errorf("want exit 2 (configuration error); %s", o)
			}
			if !regexp.MustCompile(`(?i)401|api key|unauthori[sz]ed|authenticat`).MatchString(o.stdout + o.stderr) {
				t.Errorf("the CLI's message about the key is not shown; %s", o)
			}
			if o.report.Summary.Iterations > 1 || strings.Contains((o.stdout+o.stderr), "Iteration 2") {
				t.Errorf("a bad key was retried in another iteration; %s", o)
			}
			if regexp.MustCompile(`(?i)escalat|what does the agent miss`).MatchString(o.stdout + o.stderr) {
				t.Errorf("a bad key became an escalation; %s", o)
			}
		})
	}
}

// A CLI that refuses to start: Claude Code as root without IS_SANDBOX=1, Gemini
// CLI in a folder it does not trust. Exit 2 with the CLI's message, and the
// model is never asked.
func TestRefusesToStart(t *testing.T) {
	need(t)
	t.Parallel() // every scenario of the tier shares -parallel
	cases := map[string]struct {
		unset string // the recipe's variable left out
		want  string // in the CLI's message
		root  bool   // only as root
	}{
		"claude": {unset: "IS_SANDBOX", want: "root", root: true},
		"gemini": {unset: "GEMINI_CLI_TRUST_WORKSPACE", want: "trust"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var prefix []string
			if c.root { // Claude Code refuses only as root
				prefix = asRoot(t)
			}
			t.Parallel()
			a := &agent{cli: lookupCLI(name), name: name, srv: serve(t, editScenario), result: "refuses",
				setup: func(env map[string]string) { delete(env, c.unset) }}
			l := &loop{dir: repo(t), main: a, prefix: prefix}
			o := l.run(t)
			if o.code != 2 || !strings.Contains(strings.ToLower(o.stdout+o.stderr), c.want) {
				t.Errorf("want exit 2 and the CLI's message (%q); %s", c.want, o)
			}
			if strings.Contains((o.stdout + o.stderr), "Iteration 2") {
				t.Errorf("a CLI that refuses to start was retried; %s", o)
			}
			if n := modelRequests(a.srv); n > 0 && name == "claude" {
				t.Errorf("the model was asked %d times", n)
			}
		})
	}
}

// Ctrl-C while the agent's shell tool runs a long command: agentloop exits 130
// and no process of the agent's tree survives, even those the CLI starts in a
// session or a sandbox of their own (gemini, opencode, codex).
func TestInterruptDuringToolCall(t *testing.T) {
	need(t)
	if runtime.GOOS != "linux" {
		t.Skip("the survivors are looked for in /proc")
	}
	t.Parallel()
	for i, c := range clis {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// A sleep whose argument no other process has: every process whose
			// command line holds it is the tool's.
			marker := fmt.Sprintf("300.%d%d", os.Getpid(), i)
			scenario := `
turns:
  - text: "Running the long check."
    shell: "touch tool.started && sleep ` + marker + `"
`
			a := &agent{cli: c, name: c.name, srv: serve(t, scenario), result: "interrupt"}
			l := &loop{dir: repo(t), main: a, env: []string{"AGENTLOOP_KILL_GRACE=2s"}}
			l.config(t)
			cmd := l.command(t.Context(), "run", "build")
			var out testenv.Output // read while agentloop still writes to it
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			waitStarted(t, filepath.Join(l.dir, "tool.started"), marker, done, &out)
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if code := exitCode(t, err); code != 130 {
					t.Errorf("want exit 130 after Ctrl-C; exit %d\n%s", code, out.String())
				}
			case <-time.After(90 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("agentloop did not end within 90s of Ctrl-C\n%s", out.String())
			}
			if left := survivors(marker, 5*time.Second); len(left) > 0 {
				for _, pid := range left {
					killPID(pid)
				}
				t.Errorf("the tool's processes %v (sleep %s) outlived agentloop\n%s", left, marker, out.String())
			}
		})
	}
}

// waitStarted waits until the tool has started (its file exists and its sleep
// runs), or fails when agentloop ends first.
func waitStarted(t *testing.T, path, marker string, done chan error, out *testenv.Output) {
	t.Helper()
	deadline := time.After(8 * time.Minute)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			t.Fatalf("agentloop ended (%v) before the tool ran\n%s", err, out.String())
		case <-deadline:
			t.Fatalf("the tool did not start within 8m\n%s", out.String())
		case <-tick.C:
			if _, err := os.Stat(path); err == nil && len(survivors(marker, 0)) > 0 {
				return
			}
		}
	}
}

// survivors are the running processes (not zombies) whose command line holds
// marker, after waiting up to d for them to end.
func survivors(marker string, d time.Duration) []int {
	return procsMatching(d, func(pid string) bool {
		cmdline, err := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		return err == nil && strings.Contains(string(cmdline), marker)
	})
}

// procsMatching are the running processes (not zombies) match accepts, after
// waiting up to d for them to end.
func procsMatching(d time.Duration, match func(pid string) bool) []int {
	end := time.Now().Add(d)
	for {
		var pids []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || !match(e.Name()) {
				continue
			}
			stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			// The state follows the parenthesised command name.
			if err != nil || strings.Contains(string(stat), ") Z") || strings.Contains(string(stat), ") X") {
				continue
			}
			pids = append(pids, pid)
		}
		if len(pids) == 0 || time.Now().After(end) {
			return pids
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A reviewer that is a second real CLI: Claude Code fixes, Codex reviews and
// approves; the run succeeds with the verdict shown.
func TestRealReviewer(t *testing.T) {
	need(t)
	t.Parallel()
	main := &agent{cli: lookupCLI("claude"), name: "claude", srv: serve(t, editScenario), result: "success"}
	rev := &agent{cli: lookupCLI("codex"), name: "codex", srv: serve(t, approveScenario), result: "review"}
	l := &loop{dir: repo(t), main: main, reviewer: rev}
	o := l.run(t)
	if o.code != 0 || o.report.Summary.Status != "succeeded" || !fixed(t, l.dir) {
		t.Fatalf("want a success; %s", o)
	}
	if modelRequests(rev.srv) == 0 || !strings.Contains((o.stdout+o.stderr), "APPROVED") {
		t.Errorf("want the reviewer asked and its verdict shown; %s", o)
	}
}

// .ci/run installs exactly the versions these tests were written against.
func TestCIInstallsTheTestedVersions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clis {
		if !strings.Contains(string(b), c.pkg) {
			t.Errorf(".ci/run does not install %s", c.pkg)
		}
	}
}

// A reply stream cut mid-way, every time: the CLI's own error is shown, the
// run retries it within the iteration as a transient (network or overloaded)
// outcome, and it never ends as a success.
func TestCutStream(t *testing.T) {
	need(t)
	t.Parallel() // every scenario of the tier shares -parallel
	for _, c := range []struct{ name, words string }{
		{"claude", "Connection to the API was lost"},
		{"codex", "stream disconnected before completion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := &agent{cli: lookupCLI(c.name), name: c.name, srv: serve(t, cutScenario), result: "cut"}
			l := &loop{dir: repo(t), main: a, limits: map[string]any{"max_iterations": 1},
				env: []string{"AGENTLOOP_BACKOFF_BASE=100ms"}}
			o := l.run(t)
			if o.code == 0 || o.report.Summary.Status == "succeeded" || fixed(t, l.dir) {
				t.Fatalf("a cut stream ended as a success; %s", o)
			}
			out := o.stdout + o.stderr
			for _, want := range []string{"overloaded or network error", "retry 1/2", c.words} {
				if !strings.Contains(out, want) {
					t.Errorf("the output does not say %q; %s", want, o)
				}
			}
			if n := cutRequests(a.srv); n < 3 {
				t.Errorf("the double cut %d replies: want the agent run at least three times (one retry of its own, two of agentloop's)", n)
			}
		})
	}
}

func cutRequests(s server) int {
	n := 0
	for _, r := range s.Records() {
		if r.Fault == "cut" && !r.Side {
			n++
		}
	}
	return n
}

// A reply that never ends: the iteration's timeout ends the agent, the run
// says "timed out" (the failure threshold of 1 stops it with the iteration's
// reason), and no process the CLI started is left.
func TestNeverEndingReply(t *testing.T) {
	need(t)
	if runtime.GOOS != "linux" {
		t.Skip("the survivors are looked for in /proc")
	}
	t.Parallel()
	for _, name := range []string{"claude", "codex"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := &agent{cli: lookupCLI(name), name: name, srv: serve(t, hangScenario), result: "hang"}
			l := &loop{dir: repo(t), main: a, limits: map[string]any{"failure_threshold": 1, "iteration_timeout": "150s"},
				env: []string{"AGENTLOOP_KILL_GRACE=2s"}}
			o := l.run(t)
			if o.code == 0 || o.report.Summary.Status == "succeeded" {
				t.Fatalf("a reply that never ends ended as a success; %s", o)
			}
			if !strings.Contains(o.stdout+o.stderr, "agent timed out after 2m30s") {
				t.Errorf("the output does not say the agent timed out; %s", o)
			}
			hung := false
			for _, r := range a.srv.Records() {
				hung = hung || r.Fault == "hang"
			}
			if !hung {
				t.Errorf("the CLI never asked the model within the timeout: nothing was left hanging; %s", o)
			}
			if left := withEnv("HOME="+a.env["HOME"], 5*time.Second); len(left) > 0 {
				for _, pid := range left {
					killPID(pid)
				}
				t.Errorf("the CLI's processes %v outlived agentloop; %s", left, o)
			}
		})
	}
}

// withEnv are the running processes (not zombies) whose environment holds
// kv, after waiting up to d for them to end.
func withEnv(kv string, d time.Duration) []int {
	return procsMatching(d, func(pid string) bool {
		env, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
		return err == nil && slices.Contains(strings.Split(string(env), "\x00"), kv)
	})
}

// killPID kills the process pid, if it is still there.
func killPID(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
