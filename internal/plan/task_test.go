package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/tasks"
)

func TestResumeTask(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "agentloop.yaml"), []byte("procedures:\n  work:\n    agent: {cmd: [my-agent]}\n    gates: [{name: all, run: \"make\"}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := tasks.Member{Graph: "g", Repo: repo, StateDir: filepath.Join(repo, ".agentloop"), Task: tasks.Task{
		ID: "a", Prompt: "do a", Procedure: "work", Gates: []tasks.Gate{{Name: "tests", Run: "go test ./..."}},
		Limits: &tasks.Limits{}, Files: []string{"api/**"},
	}}
	m.Task.Limits.MaxIterations = 4
	var gotDir string
	var gotRecorded []string
	configure := func(dir string, recorded []string) (*config.Config, []string, error) {
		gotDir, gotRecorded = dir, recorded
		agentCmd := "graph-agent"
		cfg, err := config.Load(config.Options{WorkDir: dir, Getenv: func(string) string { return "" }, UserConfigDir: t.TempDir(),
			Flags: config.Overrides{AgentCmd: &agentCmd}})
		return cfg, append(recorded, "--max-cost=3"), err
	}
	p, err := ResumeTask(m, []string{"--agent-cmd=graph-agent"}, configure, func(string) string { return "" }, false)
	if err != nil {
		t.Fatal(err)
	}
	if gotDir != repo || !slices.Equal(gotRecorded, []string{"--agent-cmd=graph-agent"}) {
		t.Errorf("configured in %s with %q", gotDir, gotRecorded)
	}
	if p.Name != "g-a" || p.WorkDir != tasks.TaskWorkTree(m.StateDir, "g", "a") || p.StateDir != m.StateDir {
		t.Errorf("plan name %s, work dir %s, state dir %s", p.Name, p.WorkDir, p.StateDir)
	}
	if p.Agent.Binary != "graph-agent" {
		t.Errorf("agent %q, want the graph's flag's", p.Agent.Binary)
	}
	if len(p.Gates) != 1 || p.Gates[0].Name != "tests" || p.Proc.Limits.MaxIterations != 4 || !slices.Equal(p.Scope, []string{"api/**"}) || !strings.Contains(p.Task, "do a") {
		t.Errorf("the task is not applied: gates %+v, max iterations %d, scope %v, task %q", p.Gates, p.Proc.Limits.MaxIterations, p.Scope, p.Task)
	}
	if !slices.Equal(p.Args, []string{"--agent-cmd=graph-agent", "--max-cost=3"}) {
		t.Errorf("args %q", p.Args)
	}
	m.Task.Procedure = "nosuch"
	if _, err := ResumeTask(m, nil, configure, func(string) string { return "" }, false); err == nil || !strings.Contains(err.Error(), "task a") {
		t.Errorf("an unknown procedure: %v", err)
	}
}

func TestStopGrace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  string
		want time.Duration
		bad  bool
	}{
		{"", tasks.DefaultStopGrace, false},
		{"90s", 90 * time.Second, false},
		{"soon", 0, true},
		{"0s", 0, false}, // Finishing takes it as the default
		{"-1m", 0, true},
	}
	for _, tt := range tests {
		got, err := StopGrace(func(k string) string {
			if k == tasks.StopGraceEnv {
				return tt.env
			}
			return ""
		})
		if got != tt.want || (err != nil) != tt.bad {
			t.Errorf("StopGrace(%q) = %v, %v; want %v, error %v", tt.env, got, err, tt.want, tt.bad)
		}
	}
}
