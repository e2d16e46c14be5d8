package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/tasks"
)

func TestCommandArgv(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   config.Command
		want []string
	}{
		{config.Command{}, nil},
		{config.Command{Argv: []string{"go", "test", "./..."}}, []string{"go", "test", "./..."}},
		{config.Command{Shell: "go  test ./..."}, []string{"go", "test", "./..."}},
		{config.Command{Shell: "go test ./... | tee out"}, []string{"sh", "-c", "go test ./... | tee out"}},
		{config.Command{Shell: "FOO=1 make"}, []string{"sh", "-c", "FOO=1 make"}},
	} {
		if got := CommandArgv(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("CommandArgv(%+v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func load(t *testing.T, wd string, ov config.Overrides) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.Options{WorkDir: wd, Getenv: func(string) string { return "" }, UserConfigDir: t.TempDir(), Flags: ov})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestResolve(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	agentCmd, reviewer := "my-agent --yes", "codex"
	cfg := load(t, wd, config.Overrides{AgentCmd: &agentCmd, Reviewer: &reviewer, Gates: []string{"go test ./..."}})
	env := map[string]string{"AGENTLOOP_KILL_GRACE": "2s"}
	p, err := Resolve(cfg, "", Options{WorkDir: wd, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != config.DefaultProcedure || p.StateDir != filepath.Join(wd, ".agentloop") {
		t.Errorf("name %q, state folder %q", p.Name, p.StateDir)
	}
	if p.Agent.Binary != "my-agent" || !slices.Equal(p.Agent.Args, []string{"--yes"}) {
		t.Errorf("agent %s %q", p.Agent.Binary, p.Agent.Args)
	}
	if p.KillGrace != 2*time.Second || p.RateLimitWait != 30*time.Minute || p.Decider == nil {
		t.Errorf("kill grace %v, rate-limit wait %v, decider %v", p.KillGrace, p.RateLimitWait, p.Decider)
	}
	if len(p.Gates) != 1 || p.GateRunner() == nil || p.GateRunner().Count() != 1 {
		t.Errorf("gates %+v", p.Gates)
	}
	if p.Reviewer == nil || p.ReviewerAgent(nil) == nil {
		t.Error("the reviewer given is not in the plan")
	}
	if a := p.AgentRunner(nil); a.Agent.Binary != "my-agent" || a.IdleTimeout != p.Proc.Limits.IdleTimeout {
		t.Errorf("agent runner %+v", a)
	}

	// The ledger is kept by default, where it has a place.
	if p.Budgets.On || p.Spec().Shared {
		t.Errorf("no HOME, no XDG_STATE_HOME: the ledger has no place, yet the run shares its spend: %+v %q", p.Budgets, p.LedgerPath)
	}
	env["XDG_STATE_HOME"] = "/state"
	if p, err := Resolve(cfg, "", Options{WorkDir: wd, Getenv: func(k string) string { return env[k] }}); err != nil || !p.Budgets.On ||
		p.LedgerPath != "/state/agentloop/ledger.jsonl" || !p.Spec().Shared || p.Keys[""].Provider == "" {
		t.Errorf("the ledger kept by default: %+v %q shared %v keys %v, %v", p.Budgets, p.LedgerPath, p.Spec().Shared, p.Keys, err)
	}
	delete(env, "XDG_STATE_HOME")

	env["AGENTLOOP_BACKOFF_BASE"] = "soon"
	if _, err := Resolve(cfg, "", Options{WorkDir: wd, Getenv: func(k string) string { return env[k] }}); err == nil || !strings.Contains(err.Error(), "AGENTLOOP_BACKOFF_BASE") {
		t.Errorf("a bad duration in the environment: %v", err)
	}
	if _, err := Resolve(cfg, "nosuch", Options{WorkDir: wd}); err == nil {
		t.Error("an unknown procedure resolves")
	}
}

func TestResolveWithoutReviewerOrGates(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	agent := "claude"
	p, err := Resolve(load(t, wd, config.Overrides{Agent: &agent}), "", Options{WorkDir: wd})
	if err != nil {
		t.Fatal(err)
	}
	if p.ReviewerAgent(nil) != nil || p.GateRunner() != nil {
		t.Error("a plan with no reviewer and no gates builds adapters for them")
	}
	if w := p.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q, want none (a missing task is found at the first prompt)", w)
	}
}

func TestApplyTask(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	agent := "claude"
	p, err := Resolve(load(t, wd, config.Overrides{Agent: &agent, Gates: []string{"make"}}), "", Options{WorkDir: wd})
	if err != nil {
		t.Fatal(err)
	}
	before := p.Proc.Limits
	optional := false
	task := tasks.Task{
		ID: "api", Title: "Add the endpoint", Files: []string{"api/**"},
		Gates:  []tasks.Gate{{Name: "unit", Run: "go test ./api/...", Required: &optional}},
		Limits: &tasks.Limits{Limits: budget.Limits{MaxIterations: 4}},
	}
	if err := ApplyTask(p, task); err != nil {
		t.Fatal(err)
	}
	if p.Task != task.Text() || p.TaskText() != task.Text() {
		t.Errorf("task text %q", p.Task)
	}
	if len(p.Gates) != 1 || p.Gates[0].Name != "unit" || p.Gates[0].Required || !slices.Equal(p.Gates[0].Argv, []string{"go", "test", "./api/..."}) {
		t.Errorf("gates %+v", p.Gates)
	}
	if p.Proc.Limits.MaxIterations != 4 || p.Proc.Limits.FailureThreshold != before.FailureThreshold {
		t.Errorf("limits %+v, before %+v", p.Proc.Limits, before)
	}
	if !slices.Equal(p.Scope, task.Files) || !strings.HasPrefix(p.Proc.Prompt.Context[len(p.Proc.Prompt.Context)-1], "Task api: ") {
		t.Errorf("scope %q, context %q", p.Scope, p.Proc.Prompt.Context)
	}
}

// TestSecretsUnion: what any process of the plan is given as a secret is
// redacted from what every one of them prints.
func TestSecretsUnion(t *testing.T) {
	t.Setenv("AGENTLOOP_TEST_OWN_TOKEN", "own-0d5f8a2c9e71")
	p := &Plan{
		Agent:    agent.Preset{Name: "a", Env: map[string]string{"AGENT_API_KEY": "agent-7c1e9b4d2a"}},
		Fallback: []agent.Preset{{Name: "f", Env: map[string]string{"FALLBACK_TOKEN": "fallback-3b8d1f6e"}}},
		Reviewer: &agent.Preset{Name: "r", Env: map[string]string{"REVIEW_SECRET": "review-9a2c4e6f8b"}},
		Gates:    []GateSpec{{Name: "g", Env: []string{"GATE_PASSWORD=gate-5e7a9c1d3f", "GATE_MODE=fast-and-loud"}}},
	}
	got := p.Secrets().String("own-0d5f8a2c9e71 agent-7c1e9b4d2a fallback-3b8d1f6e review-9a2c4e6f8b gate-5e7a9c1d3f fast-and-loud")
	want := "[REDACTED:$AGENTLOOP_TEST_OWN_TOKEN] [REDACTED:$AGENT_API_KEY] [REDACTED:$FALLBACK_TOKEN] [REDACTED:$REVIEW_SECRET] [REDACTED:$GATE_PASSWORD] fast-and-loud"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if first := p.Secrets(); p.Secrets() != first {
		t.Error("Secrets is made again on each call")
	}
}

// A gate has a time limit unless told otherwise: its own timeout:, else the
// run's --gate-timeout (limits.gate_timeout), else go test's own 10 minutes.
func TestGateTimeout(t *testing.T) {
	t.Parallel()
	short := 2 * time.Second
	tests := []struct {
		name string
		yaml string // the workspace configuration ("" none)
		ov   config.Overrides
		want map[string]time.Duration
	}{
		{name: "the default", ov: config.Overrides{Gates: []string{"sleep 1000"}},
			want: map[string]time.Duration{"sleep": config.DefaultGateTimeout}},
		{name: "the run's", ov: config.Overrides{Gates: []string{"sleep 1000"}, GateTimeout: &short},
			want: map[string]time.Duration{"sleep": short}},
		{name: "the gate's own first",
			yaml: "procedures:\n  build:\n    agent: claude\n    limits: {gate_timeout: 1m}\n    gates:\n      - {name: own, run: \"true\", timeout: 30s}\n      - {name: run, run: \"true\"}\n",
			want: map[string]time.Duration{"own": 30 * time.Second, "run": time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wd := t.TempDir()
			if tt.yaml != "" {
				if err := os.WriteFile(filepath.Join(wd, config.WorkspaceFile), []byte(tt.yaml), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			agent := "claude"
			tt.ov.Agent = &agent
			p, err := Resolve(load(t, wd, tt.ov), "", Options{WorkDir: wd})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]time.Duration{}
			for _, g := range p.Gates {
				got[g.Name] = g.Timeout
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("gate timeouts (-want +got):\n%s", diff)
			}
		})
	}
}

// The task as the run was told it is its prompt's: an issue's text (the
// plan's task, which run --issue and serve set, with no context) decides
// which failures are the run's as --context does; it was left out, and an
// issue-driven run took every failure there before it for its own.
func TestSpecTold(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "TASK.md"), []byte("Fix TestSub.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		task    string
		context []string
		want    []string // what the task as told holds
	}{
		{name: "told nothing"},
		{name: "an issue's text", task: "Add returns the wrong sum (#5)\n\nTestAdd fails.", want: []string{"TestAdd fails."}},
		{name: "a context file", context: []string{"TASK.md"}, want: []string{"Fix TestSub."}},
		{name: "both", task: "TestAdd fails.", context: []string{"TASK.md"}, want: []string{"TestAdd fails.", "Fix TestSub."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &Plan{WorkDir: dir, Task: tt.task}
			p.Proc.Prompt.Context = tt.context
			told := p.Spec().Told
			if len(tt.want) == 0 && told != "" {
				t.Errorf("told %q, want nothing", told)
			}
			for _, w := range tt.want {
				if !strings.Contains(told, w) {
					t.Errorf("told %q, want it to hold %q", told, w)
				}
			}
		})
	}
}
