package temporal

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/double"
	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/testenv"
)

// windowReset is how long the double keeps the account at its usage limit
// from the first request: long enough for the second loop to start, learn
// the window from the ledger and run on its fallback well before the reset
// on a loaded machine.
const windowReset = 45

// TestRealServerUsageWindowFallback: on a real dev server, two loops on one
// Claude account (the real CLI, as a subscriber, against the model double),
// each with a fallback agent on another account. The double puts the account
// at its usage limit at the first loop's first request; that loop tells the
// ledger workflow. The second loop, started then, learns the window from the
// ledger: it runs on its fallback at once instead of waiting for the reset,
// and on Claude again after it.
func TestRealServerUsageWindowFallback(t *testing.T) {
	claudeBin := realCLI(t, "claude")
	_, c := newDevServer(t)
	defer c.Close()
	ctx := t.Context()
	queue := "window-" + time.Now().Format("150405.000000000")

	sc, err := double.ParseScenario("scenario.yaml", []byte(fmt.Sprintf("turns:\n  - fault: {usage_limit: %d}\n    text: Done.\n", windowReset)))
	if err != nil {
		t.Fatal(err)
	}
	srv := double.New(sc, nil)
	hs := httptest.NewServer(srv)
	defer hs.Close()

	dir := t.TempDir()
	starts := filepath.Join(dir, "starts.log") // "UNIX-TIME AGENT WORKDIR" for each agent process
	claude, err := agent.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	main := claude.Merge(agent.Override{Binary: shellScript(t, dir, "claude.sh", fmt.Sprintf("echo \"$(date +%%s.%%N) claude $PWD\" >>%q\nexec %q \"$@\"\n", starts, claudeBin)),
		Env: map[string]string{
			"HOME": filepath.Join(dir, "home"), "ANTHROPIC_BASE_URL": hs.URL, "ANTHROPIC_API_KEY": "",
			// A subscription: only then does Claude Code read the usage
			// limit's headers and say when it resets (internal/agent/RECIPES.md).
			"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-double", "IS_SANDBOX": "1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "CLAUDE_CODE_MAX_RETRIES": "2",
		}})
	fb := claude.Merge(agent.Override{Binary: "sh", Args: []string{"-c", fmt.Sprintf(`echo "$(date +%%s.%%N) fb $PWD" >>%q; cat >/dev/null; sleep 2
echo '{"type":"result","subtype":"success","is_error":false,"result":"Done.","total_cost_usd":0.01,"usage":{"input_tokens":100,"output_tokens":50}}'`, starts)}})
	fb.Name = "fb"
	acct := budget.Key{Provider: "claude", Account: "claude:double"}
	keys := map[string]budget.Key{"": acct, "fb": {Provider: "claude", Account: "claude:other"}}
	steps := &Steps{Log: testLogger(), Plan: func(_ context.Context, r RunRef) (*plan.Plan, error) {
		return &plan.Plan{
			Name: r.Name, WorkDir: r.WorkDir, StateDir: filepath.Join(r.WorkDir, ".agentloop"),
			Proc: config.Procedure{Name: "build"}, Agent: main, Fallback: []agent.Preset{fb}, KillGrace: time.Second,
			Budgets: config.Budgets{On: true, Given: true}, Keys: keys, BudgetPoll: time.Second,
		}, nil
	}}
	w := NewWorker(ctx, c, Server{TaskQueue: queue}, steps, "", time.Second)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	lc := LedgerClient{C: c, Queue: queue}

	work := map[string]string{}
	start := func(name, id string) {
		work[name] = filepath.Join(dir, name)
		if err := os.MkdirAll(work[name], 0o755); err != nil {
			t.Fatal(err)
		}
		in := input(budget.Limits{MaxIterations: 200, FailureThreshold: 200}, false)
		in.Run.Name, in.Run.RunID, in.Run.WorkDir, in.Shared = name, id, work[name], true
		in.State.Name, in.State.RunID = name, id
		if err := Start(ctx, c, Server{TaskQueue: queue}, in, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	stopAll := func() {
		for name := range work {
			_ = c.CancelWorkflow(context.WithoutCancel(ctx), WorkflowID(name), "")
		}
		for name := range work {
			_ = c.GetWorkflow(context.WithoutCancel(ctx), WorkflowID(name), "").Get(context.WithoutCancel(ctx), nil)
		}
	}
	defer stopAll()

	// The first loop meets the usage limit and tells the ledger.
	start("window-a", "ra")
	var win ledger.Window
	waitFor(t, 90*time.Second, "the first loop to tell the ledger of the usage window", func() bool {
		r, err := lc.Report(ctx, nil, time.Now())
		if err == nil && len(r.Windows) > 0 {
			win = r.Windows[0]
		}
		return err == nil && len(r.Windows) > 0
	})
	if win.Key.Account != acct.Account || time.Until(win.Until) < 10*time.Second {
		t.Fatalf("the ledger's window is %+v, want the account %s's, about %ds ahead", win, acct.Account, windowReset)
	}

	// The second loop starts in the window: on its fallback at once, back
	// on Claude after the reset.
	start("window-b", "rb")
	var b []agentStart
	waitFor(t, time.Until(win.Until)+90*time.Second, "the second loop to run on Claude after the reset", func() bool {
		b = startsIn(t, starts, work["window-b"])
		return len(b) > 0 && b[len(b)-1].agent == "claude"
	})
	if b[0].agent != "fb" || !b[0].at.Before(win.Until) {
		t.Errorf("the second loop's first agent was %s at %s, want its fallback before the reset at %s (it learned the window from the ledger)",
			b[0].agent, b[0].at.Format(time.TimeOnly), win.Until.Format(time.TimeOnly))
	}
	if last := b[len(b)-1]; last.at.Before(win.Until) {
		t.Errorf("the second loop ran Claude at %s, before the reset at %s", last.at.Format(time.TimeOnly), win.Until.Format(time.TimeOnly))
	}
	for _, s := range b[:len(b)-1] {
		if s.agent != "fb" {
			t.Errorf("the second loop ran %s at %s, before the reset at %s: want only its fallback until then", s.agent, s.at.Format(time.TimeOnly), win.Until.Format(time.TimeOnly))
		}
	}
	// Claude's iteration after the reset is served and ends.
	v := waitView(t, c, "window-b", func(v View) bool {
		n := len(v.State.History)
		return n > 0 && !v.State.History[n-1].StartedAt.Before(b[len(b)-1].at.Add(-5*time.Second))
	})
	said := false
	for _, ev := range v.Events {
		if wn, ok := ev.Data.(state.Warning); ok && strings.Contains(wn.Message, "the loop runs on the fallback agent fb until then") {
			said = true
		}
	}
	if !said {
		t.Errorf("the second loop's events do not say it runs on its fallback")
	}
	t.Logf("the second loop ran %d fallback iteration(s), the first %s before the reset, then Claude", len(b)-1, win.Until.Sub(b[0].at).Round(time.Second))
}

// realCLI is the executable of a real agent CLI installed for the
// end-to-end tier (AGENTLOOP_E2E_CLIS); the test skips without it (and
// fails under CI, where .ci/run installs them).
func realCLI(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("AGENTLOOP_E2E_CLIS")
	if dir == "" {
		if testenv.CI() {
			t.Fatal("AGENTLOOP_E2E_CLIS is not set: .ci/run installs the agent CLIs with npm and sets it to their prefix")
		}
		t.Skip("AGENTLOOP_E2E_CLIS is not set: this test runs the real " + name + " CLI (installed with npm, see .ci/run)")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the %s CLI is not installed under AGENTLOOP_E2E_CLIS: %v", name, err)
	}
	return bin
}

// shellScript writes an executable shell script.
func shellScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// agentStart is an agent process started for a loop.
type agentStart struct {
	at    time.Time
	agent string
}

// startsIn are the agents started in work, in order, from the log.
func startsIn(t *testing.T, log, work string) []agentStart {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []agentStart
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != work {
			continue
		}
		sec, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			t.Fatalf("starts log: %q: %v", line, err)
		}
		out = append(out, agentStart{at: time.Unix(0, int64(sec*1e9)), agent: f[1]})
	}
	return out
}

// waitFor polls ok until it holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s after %s", what, d)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
