package config

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/prompt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fakeFS serves files from a map; everything else does not exist.
func fakeFS(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
	}
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// load runs Load on a fake workspace /ws with a global dir /g.
func load(t *testing.T, global, workspace string, getenv func(string) string, f Overrides) (*Config, error) {
	t.Helper()
	files := map[string]string{}
	if global != "" {
		files["/g/config.yaml"] = global
	}
	if workspace != "" {
		files["/ws/agentloop.yaml"] = workspace
	}
	if getenv == nil {
		getenv = env()
	}
	return Load(Options{WorkDir: "/ws", UserConfigDir: "/g", Getenv: getenv, Flags: f, ReadFile: fakeFS(files)})
}

func ptr[T any](v T) *T { return &v }

func TestMaxIterationsPrecedence(t *testing.T) {
	t.Parallel()
	const proc = "procedures:\n  p:\n    description: x\n"
	tests := []struct {
		name, global, workspace string
		getenv                  func(string) string
		flag                    *int
		want                    int
		from                    string
	}{
		{name: "nothing set: unlimited", workspace: proc, want: 0},
		{name: "global defaults", global: "defaults:\n  limits: {max_iterations: 4}\n", workspace: proc, want: 4, from: "global /g/config.yaml:2"},
		{name: "global procedure", global: "procedures:\n  p:\n    limits: {max_iterations: 5}\n", workspace: proc, want: 5, from: "global /g/config.yaml:3"},
		{name: "procedure beats global", global: "defaults:\n  limits: {max_iterations: 4}\n",
			workspace: proc + "    limits: {max_iterations: 6}\n", want: 6, from: "workspace agentloop.yaml:4"},
		{name: "workspace defaults beat global procedure", global: "procedures:\n  p:\n    limits: {max_iterations: 5}\n",
			workspace: "defaults:\n  limits:\n    max_iterations: 2\n" + proc, want: 2, from: "workspace agentloop.yaml:3"},
		{name: "env beats files", workspace: proc + "    limits: {max_iterations: 6}\n",
			getenv: env("AGENTLOOP_MAX_ITERATIONS", "8"), want: 8, from: "env AGENTLOOP_MAX_ITERATIONS"},
		{name: "flag beats everything", global: "defaults:\n  limits: {max_iterations: 4}\n", workspace: proc + "    limits: {max_iterations: 6}\n",
			getenv: env("AGENTLOOP_MAX_ITERATIONS", "8"), flag: ptr(9), want: 9, from: "flag --max-iterations"},
		{name: "flag zero means unlimited", workspace: proc + "    limits: {max_iterations: 6}\n", flag: ptr(0), want: 0, from: "flag --max-iterations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := load(t, tt.global, tt.workspace, tt.getenv, Overrides{MaxIterations: tt.flag})
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Procedure("p")
			if err != nil {
				t.Fatal(err)
			}
			if p.Limits.MaxIterations != tt.want {
				t.Errorf("max_iterations = %d, want %d", p.Limits.MaxIterations, tt.want)
			}
			if got := sourceOf(c, "p", "limits.max_iterations").From; got != tt.from {
				t.Errorf("source = %q, want %q", got, tt.from)
			}
		})
	}
}

func sourceOf(c *Config, proc, key string) Source {
	for _, s := range c.Sources(proc) {
		if s.Key == key {
			return s
		}
	}
	return Source{}
}

func TestNoConfigUsesBuiltins(t *testing.T) {
	t.Parallel()
	c, err := load(t, "", "", nil, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Default != "build" {
		t.Errorf("default = %q, want build", c.Default)
	}
	p, err := c.Procedure("")
	if err != nil {
		t.Fatal(err)
	}
	want := Procedure{
		Name: "build", Builtin: true, Description: prompt.Builtins()[0].Description,
		Prompt: prompt.Builtins()[0].Parts,
		Agent:  AgentRef{Name: "claude"},
		Limits: Limits{Limits: budget.Limits{MaxIterations: 10, FailureThreshold: 3, IterationTimeout: time.Hour}, IdleTimeout: 20 * time.Minute, GateTimeout: DefaultGateTimeout}, Feedback: Feedback{MaxLength: 500},
		Baseline:   true,
		Escalation: Escalation{On: []string{"security", "architecture", "conflict", "scope_creep"}, IncludeDiff: true, MaxDiffLines: 300},
		Git:        Git{Checkpoint: true},
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("build (-want +got):\n%s", diff)
	}
	if got := c.Names(); !cmp.Equal(got, []string{"build", "fix-tests"}) {
		t.Errorf("names = %v", got)
	}
	if len(c.Files) != 0 {
		t.Errorf("files = %v, want none", c.Files)
	}
}

func TestFlagsAndEnv(t *testing.T) {
	t.Parallel()
	ws := "procedures:\n  p:\n    prompt: {context: [AGENTS.md]}\n    gates: [make test]\n"
	getenv := env("AGENTLOOP_AGENT_CMD", "my-agent --yes", "AGENTLOOP_TIMEOUT", "2h", "AGENTLOOP_MAX_COST_USD", "3.5",
		"AGENTLOOP_LOG_FORMAT", "json", "AGENTLOOP_REVIEWER", "codex", "AGENTLOOP_MAX_TOKENS", "1000")
	c, err := load(t, "", ws, getenv, Overrides{
		Context: []string{"TASK.md"}, Gates: []string{"go test ./...", "go vet ./..."},
		IterationTimeout: ptr(10 * time.Minute), GateTimeout: ptr(90 * time.Second), FailureThreshold: ptr(5), MaxCostUSD: ptr(1.25), LogFormat: ptr("text"),
	})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Procedure("p")
	if got, want := p.Prompt.Context, []string{"AGENTS.md", "TASK.md"}; !cmp.Equal(got, want) {
		t.Errorf("context = %v, want %v", got, want)
	}
	if got := []string{p.Gates[0].Name, p.Gates[1].Name, p.Gates[1].Run.Shell}; !cmp.Equal(got, []string{"go-test", "go-vet", "go vet ./..."}) {
		t.Errorf("gates = %+v", p.Gates)
	}
	if p.Agent.Spec.Cmd.Shell != "my-agent --yes" || p.Reviewer == nil || p.Reviewer.Agent.Name != "codex" || p.Reviewer.MaxRounds != 3 {
		t.Errorf("agent = %+v reviewer = %+v", p.Agent, p.Reviewer)
	}
	wantLimits := Limits{Limits: budget.Limits{FailureThreshold: 5, IterationTimeout: 10 * time.Minute, MaxCostUSD: 1.25, MaxTokens: 1000},
		IdleTimeout: 20 * time.Minute, GateTimeout: 90 * time.Second, Timeout: 2 * time.Hour}
	if diff := cmp.Diff(wantLimits, p.Limits); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
	if c.LogFormat != "text" {
		t.Errorf("log_format = %q, want the flag's text", c.LogFormat)
	}
	want := map[string]string{
		"prompt.context[0]":        "workspace agentloop.yaml:3",
		"prompt.context[1]":        "flag --context",
		"gates":                    "flag --gate",
		"agent":                    "env AGENTLOOP_AGENT_CMD",
		"limits.failure_threshold": "flag --failure-threshold",
		"log_format":               "flag --log-format",
		"limits.max_cost_usd":      "flag --max-cost",
		"reviewer.agent":           "env AGENTLOOP_REVIEWER",
		"state_dir":                "built-in",
	}
	for k, from := range want {
		if got := sourceOf(c, "p", k).From; got != from {
			t.Errorf("source of %s = %q, want %q", k, got, from)
		}
	}
}

func TestProcedureSelection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ws, ask, want, err string
	}{
		{name: "only one configured", ws: "procedures:\n  a: {}\n", want: "a"},
		{name: "default set", ws: "default: b\nprocedures:\n  a: {}\n  b: {}\n", want: "b"},
		{name: "default names a built-in", ws: "default: fix-tests\n", want: "fix-tests"},
		{name: "several, no default", ws: "procedures:\n  a: {}\n  b: {}\n", err: "choose a procedure: the configuration defines a, b"},
		{name: "unknown", ws: "procedures:\n  a: {}\n", ask: "nope", err: `no such procedure; known: a, build, fix-tests`},
		{name: "named", ws: "procedures:\n  a: {}\n  b: {}\n", ask: "build", want: "build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := load(t, "", tt.ws, nil, Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Procedure(tt.ask)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || p.Name != tt.want {
				t.Fatalf("got %q, %v; want %q", p.Name, err, tt.want)
			}
		})
	}
}

func TestGlobalLocation(t *testing.T) {
	t.Parallel()
	g := "defaults:\n  limits: {max_iterations: 3}\n"
	for _, tt := range []struct {
		name   string
		getenv func(string) string
		path   string
	}{
		{"xdg", env("XDG_CONFIG_HOME", "/x", "HOME", "/h"), "/x/agentloop/config.yaml"},
		{"home", env("HOME", "/h"), "/h/.config/agentloop/config.yaml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rf := fakeFS(map[string]string{tt.path: g})
			c, err := Load(Options{WorkDir: "/ws", Getenv: tt.getenv, ReadFile: rf})
			if err != nil {
				t.Fatal(err)
			}
			if p, _ := c.Procedure("build"); p.Limits.MaxIterations != 3 || !cmp.Equal(c.Files, []string{tt.path}) {
				t.Errorf("max_iterations = %d, files = %v", p.Limits.MaxIterations, c.Files)
			}
		})
	}
}

func TestPromptPathsRelativeToTheirFile(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"/g/config.yaml":    "procedures:\n  g:\n    prompt: {observe: prompts/o.md}\n",
		"/etc/al/loop.yaml": "procedures:\n  w:\n    prompt: {act: a.md, context: [ctx.md]}\n",
	}
	c, err := Load(Options{WorkDir: "/ws", UserConfigDir: "/g", ConfigFile: "/etc/al/loop.yaml", Getenv: env(), ReadFile: fakeFS(files)})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := c.Procedure("g")
	w, _ := c.Procedure("w")
	if g.Prompt.Observe.File != "/g/prompts/o.md" || w.Prompt.Act.File != "/etc/al/a.md" || w.Prompt.Context[0] != "ctx.md" {
		t.Errorf("observe = %q, act = %q, context = %q", g.Prompt.Observe.File, w.Prompt.Act.File, w.Prompt.Context)
	}
}

func TestMissingConfigFlag(t *testing.T) {
	t.Parallel()
	_, err := Load(Options{WorkDir: "/ws", UserConfigDir: "/g", ConfigFile: "other.yaml", Getenv: env(), ReadFile: fakeFS(nil)})
	if err == nil || !strings.Contains(err.Error(), "other.yaml: no such file; check the --config path") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadFromDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, WorkspaceFile), []byte("procedures:\n  x: {limits: {max_iterations: 2}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Options{WorkDir: dir, UserConfigDir: filepath.Join(dir, "none"), Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := c.Procedure(""); err != nil || p.Name != "x" || p.Limits.MaxIterations != 2 {
		t.Errorf("got %+v, %v", p, err)
	}
}

func TestFixTestsEscalatesOnTampering(t *testing.T) {
	t.Parallel()
	c, err := load(t, "", "", nil, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Procedure("fix-tests")
	if !slices.Contains(p.Escalation.On, "test_tampering") || !p.Escalation.IncludeDiff {
		t.Errorf("fix-tests escalation = %+v", p.Escalation)
	}
}

func TestOwnProcedureGetsDefaultPrompts(t *testing.T) {
	t.Parallel()
	c, err := load(t, "", "procedures:\n  api:\n    prompt: {act: my-act.md, context: [TASK.md]}\n", nil, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Procedure("api")
	build := prompt.Builtins()[0].Parts
	want := prompt.Parts{Preamble: build.Preamble, Observe: build.Observe, Orient: build.Orient, Decide: build.Decide,
		Act: prompt.Part{File: "my-act.md"}, Context: []string{"TASK.md"}}
	if diff := cmp.Diff(want, p.Prompt); diff != "" {
		t.Errorf("prompt (-want +got):\n%s", diff)
	}
	if p.Limits.MaxIterations != 0 {
		t.Errorf("max_iterations = %d, want 0 (unlimited) for a procedure of your own", p.Limits.MaxIterations)
	}
}

func TestSourcesOfUsedAgents(t *testing.T) {
	t.Parallel()
	g := "agents:\n  claude: {extra_args: [--model, opus]}\n  unused: {cmd: x}\n"
	ws := "agents:\n  claude: {env: {A: b}}\nprocedures:\n  p: {fallback: [mine]}\n"
	if _, err := load(t, g, ws+"agents:\n", nil, Overrides{}); err == nil {
		t.Fatal("duplicate agents key accepted")
	}
	c, err := load(t, g, ws, nil, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var got []Source
	for _, s := range c.Sources("p") {
		if strings.HasPrefix(s.Key, "agents.") {
			got = append(got, s)
		}
	}
	want := []Source{
		{Key: "agents.claude.env.A", Value: "b", From: "workspace agentloop.yaml:2"},
		{Key: "agents.claude.extra_args", Value: "[--model, opus]", From: "global /g/config.yaml:2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("agent sources (-want +got):\n%s", diff)
	}
}

// keep_awake is on unless a file, AGENTLOOP_KEEP_AWAKE or --keep-awake says
// otherwise; the flag wins over the environment, which wins over the files.
func TestKeepAwake(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ws string
		env      []string
		flag     *bool
		want     bool
		from     string
	}{
		{name: "built in", want: true, from: "built-in"},
		{name: "a file", ws: "keep_awake: false\n", want: false, from: "workspace agentloop.yaml:1"},
		{name: "the environment", ws: "keep_awake: false\n", env: []string{"AGENTLOOP_KEEP_AWAKE", "true"}, want: true, from: "env AGENTLOOP_KEEP_AWAKE"},
		{name: "the flag", env: []string{"AGENTLOOP_KEEP_AWAKE", "true"}, flag: ptr(false), want: false, from: "flag --keep-awake"},
	} {
		c, err := load(t, "", tc.ws, env(tc.env...), Overrides{KeepAwake: tc.flag})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.KeepAwake != tc.want || sourceOf(c, "build", "keep_awake").From != tc.from {
			t.Errorf("%s: keep_awake = %v from %q, want %v from %q", tc.name, c.KeepAwake, sourceOf(c, "build", "keep_awake").From, tc.want, tc.from)
		}
	}
	if _, err := load(t, "", "keep_awake: sometimes\n", env(), Overrides{}); err == nil || !strings.Contains(err.Error(), "expected true or false") {
		t.Errorf("keep_awake: sometimes: %v", err)
	}
}
