package fakeagent

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/proc"
)

// TestMain lets the test binary act as the fake agent for the process tests.
func TestMain(m *testing.M) {
	if os.Getenv("FAKEAGENT_TEST_AS_MAIN") == "1" {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}

// invocation runs the agent in-process with a plan in a fresh directory.
type invocation struct {
	dir, agentDir, planPath string
	env                     map[string]string
}

func newInvocation(t *testing.T, plan string) *invocation {
	t.Helper()
	dir := t.TempDir()
	inv := &invocation{dir: dir, agentDir: filepath.Join(dir, ".fakeagent"), planPath: filepath.Join(dir, "plan.txt")}
	if err := os.WriteFile(inv.planPath, []byte(plan), 0o600); err != nil {
		t.Fatal(err)
	}
	inv.env = map[string]string{"FAKEAGENT_DIR": inv.agentDir, "FAKEAGENT_PLAN": inv.planPath, "WORK": dir}
	return inv
}

func (inv *invocation) run(prompt string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, func(k string) string { return inv.env[k] }, strings.NewReader(prompt), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunPlanAcrossCalls(t *testing.T) {
	t.Parallel()
	inv := newInvocation(t, `
[1]
expect-prompt Iteration 1
print working on it
write $WORK/src/a.go package a\n// v1\n
stderr some warning
exit 1
[2]
reject-prompt SECRET
replace $WORK/src/a.go v1 v2
append $WORK/src/a.go // more\n
print {"type":"result","total_cost_usd":0.01}
[3]
delete $WORK/src/a.go
[*]
exit 7
`)
	type step struct {
		prompt, stdout, stderr string
		code                   int
	}
	steps := []step{
		{"Iteration 1 of 3", "working on it\n", "some warning\n", 1},
		{"Iteration 2 of 3", `{"type":"result","total_cost_usd":0.01}` + "\n", "", 0},
		{"Iteration 3 of 3", "", "", 0},
		{"Iteration 4", "", "exit 7", 7},
	}
	for i, s := range steps {
		code, out, errs := inv.run(s.prompt)
		if code != s.code || out != s.stdout || !strings.Contains(errs, s.stderr) {
			t.Fatalf("call %d: exit %d stdout %q stderr %q; want %d %q %q", i+1, code, out, errs, s.code, s.stdout, s.stderr)
		}
		saved, err := os.ReadFile(filepath.Join(inv.agentDir, "prompt-"+strconv.Itoa(i+1)+".txt"))
		if err != nil || string(saved) != s.prompt {
			t.Errorf("call %d: saved prompt %q, %v", i+1, saved, err)
		}
		if i == 1 {
			b, _ := os.ReadFile(filepath.Join(inv.dir, "src", "a.go"))
			if string(b) != "package a\n// v2\n// more\n" {
				t.Errorf("after call 2 a.go = %q", b)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(inv.dir, "src", "a.go")); !os.IsNotExist(err) {
		t.Errorf("delete left the file: %v", err)
	}
}

func TestRunPromptChecksAndFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, plan, prompt string
		args               []string
		code               int
		stderr             string
	}{
		{"expect missing", "expect-prompt DONE\nprint no", "hello", nil, ExitPromptMissing, "lacks \"DONE\""},
		{"reject found", "reject-prompt DONE\n", "say DONE", nil, ExitPromptFound, "contains \"DONE\""},
		{"prompt arg", "expect-prompt from arg\n", "stdin ignored", []string{"-p", "--prompt-arg", "from arg"}, 0, ""},
		{"unknown action", "print ok\ndance\n", "", nil, ExitUsage, "plan.txt:2: unknown action \"dance\""},
		{"replace missing", "write f.txt abc\nreplace f.txt zzz y\n", "", nil, ExitActionFailed, "not found"},
		{"printfile missing", "printfile /nonexistent/transcript.jsonl\n", "", nil, ExitActionFailed, "line 1: printfile"},
		{"plan flag missing value", "", "", []string{"--plan"}, ExitUsage, "--plan needs a value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inv := newInvocation(t, tt.plan)
			// relative paths in plans are relative to the working directory: use absolute ones here
			inv.plan(t, strings.ReplaceAll(tt.plan, "f.txt", filepath.Join(inv.dir, "f.txt")))
			code, _, errs := inv.run(tt.prompt, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.stderr) {
				t.Errorf("exit %d stderr %q; want %d and %q", code, errs, tt.code, tt.stderr)
			}
		})
	}
}

func (inv *invocation) plan(t *testing.T, plan string) {
	t.Helper()
	if err := os.WriteFile(inv.planPath, []byte(plan), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestRunPromptFileAndPlanFlag(t *testing.T) {
	t.Parallel()
	inv := newInvocation(t, "")
	other := filepath.Join(inv.dir, "other-plan.txt")
	promptFile := filepath.Join(inv.dir, "prompt.md")
	_ = os.WriteFile(other, []byte("expect-prompt from file\nprintfile "+promptFile+"\nflood 100K\n"), 0o600)
	_ = os.WriteFile(promptFile, []byte("from file"), 0o600)
	code, out, errs := inv.run("", "--plan="+other, "--prompt-file", promptFile)
	if code != 0 || !strings.HasPrefix(out, "from fileflood flood") || len(out) != 9+100<<10 {
		t.Errorf("exit %d, %d bytes out (%.40q), stderr %q", code, len(out), out, errs)
	}
}

// TestProcessStubborn runs the agent as a real process under proc.Run: it spawns
// a child that ignores SIGTERM and then hangs ignoring SIGTERM itself; the timeout
// must end both.
func TestProcessStubborn(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes and waits for a grace period")
	}
	inv := newInvocation(t, "print started\nspawn-stubborn\nhang-stubborn\n")
	var out bytes.Buffer
	res, err := proc.Run(t.Context(), proc.Spec{
		Argv:   []string{os.Args[0]},
		Env:    append(os.Environ(), "FAKEAGENT_TEST_AS_MAIN=1", "FAKEAGENT_DIR="+inv.agentDir, "FAKEAGENT_PLAN="+inv.planPath),
		Stdout: &out,
		Stderr: &out,
		// The timeout must fall after the agent has spawned its child and
		// recorded both pids; a loaded machine can take seconds to get there.
		Timeout: 3 * time.Second,
		Grace:   300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Signal != "SIGKILL" || !strings.Contains(out.String(), "started") {
		t.Errorf("Result %+v, output %q", res, out.String())
	}
	b, err := os.ReadFile(filepath.Join(inv.agentDir, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	pids := strings.Fields(string(b))
	if len(pids) != 3 { // child, agent (spawn-stubborn), agent (hang-stubborn)
		t.Fatalf("pids file %q", b)
	}
	deadline := time.Now().Add(time.Second)
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		for proc.Alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d still alive", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestCountReplacesItsFile: the call counter is replaced by a rename, never
// rewritten in place, so an agent killed as it counts cannot leave it empty
// (the next call would be call 1 again). A link to the old file keeps the old
// count.
func TestCountReplacesItsFile(t *testing.T) {
	t.Parallel()
	inv := newInvocation(t, "print hi\n")
	if code, _, errs := inv.run("p"); code != 0 {
		t.Fatalf("first call: exit %d: %s", code, errs)
	}
	calls := filepath.Join(inv.agentDir, "calls")
	old := filepath.Join(inv.dir, "calls.old")
	if err := os.Link(calls, old); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := inv.run("p"); code != 0 {
		t.Fatalf("second call: exit %d: %s", code, errs)
	}
	for path, want := range map[string]string{old: "1\n", calls: "2\n"} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s holds %q (%v), want %q", filepath.Base(path), b, err, want)
		}
	}
	entries, _ := os.ReadDir(inv.agentDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".calls-") {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
}
