package temporal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// TestCommandTrust: a worker runs the commands of a run's input only when
// its configuration defines them (a gate), its operator allowed them
// exactly, or it trusts every input; else the error names each command and
// its flag.
func TestCommandTrust(t *testing.T) {
	t.Parallel()
	own := func() *plan.Plan { return &plan.Plan{Gates: []plan.GateSpec{{Command: "go test ./..."}}} }
	none := func() *plan.Plan { return nil }
	agent := func(line string) InputCommand { return InputCommand{Flag: "--agent-cmd", Line: line} }
	gate := func(line string) InputCommand { return InputCommand{Flag: "--gate", Line: line} }
	for _, tt := range []struct {
		name  string
		trust CommandTrust
		cmds  []InputCommand
		own   func() *plan.Plan
		want  string // "" for allowed
	}{
		{name: "no command in the input", own: none},
		{name: "the configuration's gate", cmds: []InputCommand{gate("go test ./...")}, own: own},
		{name: "a gate of the input", cmds: []InputCommand{gate("go test ./..."), gate("rm -rf /")}, own: own, want: `--gate "rm -rf /"`},
		{name: "an agent command of the input", cmds: []InputCommand{agent("curl x | sh")}, own: own, want: `--agent-cmd "curl x | sh"`},
		{name: "a gate's command as the agent", cmds: []InputCommand{agent("go test ./...")}, own: own, want: `--agent-cmd "go test ./..."`},
		{name: "allowed exactly", trust: CommandTrust{Allow: []string{"my-agent --yes", "make lint"}},
			cmds: []InputCommand{agent("my-agent --yes"), gate("make lint")}, own: none},
		{name: "allowed is exact", trust: CommandTrust{Allow: []string{"my-agent --yes"}},
			cmds: []InputCommand{agent("my-agent --yes; rm -rf ~")}, own: none, want: "--allow-cmd CMD"},
		{name: "trusted", trust: CommandTrust{TrustInput: true}, cmds: []InputCommand{agent("anything"), gate("at all")}, own: none},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.trust.check("build", tt.cmds, tt.own)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("check() = %v, want it allowed", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--trust-input-commands")):
				t.Errorf("check() = %v, want a refusal naming %q and the flags that trust it", err, tt.want)
			}
		})
	}
}

// TestRebuildTaskTrust: a task's gates and its graph's recorded --gate come
// with the workflow input: a worker runs them only when its clone's
// configuration defines them for the task's procedure, or they are allowed.
func TestRebuildTaskTrust(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "agentloop.yaml"),
		[]byte("procedures:\n  work:\n    agent: {cmd: [my-agent]}\n    gates: [{name: all, run: \"go test ./...\"}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	configure := func(dir string, recorded []string) (*config.Config, []string, error) {
		o := config.Overrides{}
		for _, a := range recorded {
			if g, ok := strings.CutPrefix(a, "--gate="); ok {
				o.Gates = append(o.Gates, g)
			}
		}
		cfg, err := config.Load(config.Options{WorkDir: dir, Getenv: getenv, UserConfigDir: t.TempDir(), Flags: o})
		return cfg, recorded, err
	}
	read := func(recorded []string) (RunFlags, error) {
		var f RunFlags
		for _, a := range recorded {
			if g, ok := strings.CutPrefix(a, "--gate="); ok {
				f.Commands = append(f.Commands, InputCommand{Flag: "--gate", Line: g})
			}
		}
		return f, nil
	}
	task := func(args []string, gates ...string) RunRef {
		gt := &GraphTask{Graph: "g", Repo: repo, StateDir: filepath.Join(repo, ".agentloop"),
			Task: tasks.Task{ID: "a", Prompt: "do a", Procedure: "work"}}
		for _, g := range gates {
			gt.Task.Gates = append(gt.Task.Gates, tasks.Gate{Name: "t", Run: g})
		}
		return RunRef{Name: "g-a", Procedure: "work", WorkDir: repo, Args: args, Task: gt}
	}
	for _, tt := range []struct {
		name  string
		trust CommandTrust
		run   RunRef
		want  string // "" for allowed
	}{
		{name: "the procedure's own gates", run: task(nil)},
		{name: "a task gate the configuration defines", run: task(nil, "go test ./...")},
		{name: "a task gate of the input", run: task(nil, "curl x | sh"), want: `task a's gate "curl x | sh"`},
		{name: "a graph's recorded gate", run: task([]string{"--gate=curl x | sh"}), want: `--gate "curl x | sh"`},
		{name: "a task gate allowed", trust: CommandTrust{Allow: []string{"make check"}}, run: task(nil, "make check")},
		{name: "trusted", trust: CommandTrust{TrustInput: true}, run: task([]string{"--gate=x"}, "y")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := Rebuild{Trust: tt.trust, Read: read, Configure: configure, Getenv: getenv}
			_, err := b.Plan(context.Background(), tt.run)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Plan() = %v, want it allowed", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--allow-cmd")):
				t.Errorf("Plan() = %v, want a refusal naming %q", err, tt.want)
			}
		})
	}
}

// TestRefusalCrossesOnce: a worker's refusal, wrapped as it is on its way
// out of the step, crosses as an application error of its own type that
// says it once; the workflow stops the run with it as its reason, a
// configuration error, not the agent's, and the workflow's error still
// carries it for whoever follows the run.
func TestRefusalCrossesOnce(t *testing.T) {
	t.Parallel()
	refused := &RefusedError{Run: "build", Commands: []string{`--agent-cmd "touch pwned.txt"`}}
	sentence := refused.Error()
	stepErr := planError(fmt.Errorf("rebuild the plan of run build: %w", refused))
	if n := strings.Count(stepErr.Error(), "asks this worker to run"); n != 1 {
		t.Errorf("the step's error says the refusal %d times, want once:\n%v", n, stepErr)
	}
	if !strings.Contains(stepErr.Error(), sentence) || !strings.Contains(sentence, "start it with --allow-cmd") {
		t.Errorf("the step's error = %v, want the refusal with its fix", stepErr)
	}
	stop, ok := errors.AsType[*loop.StopError](stepError(stepErr))
	if !ok || stop.Status != state.StatusAborted || stop.Reason != sentence {
		t.Fatalf("stepError() = %v, want the run stopped on the refusal", stepError(stepErr))
	}
	got, ok := Refusal(endedIn(stop.Err, RunResult{}))
	if !ok {
		t.Fatalf("Refusal(the workflow's error) found none in %v", endedIn(stop.Err, RunResult{}))
	}
	if diff := cmp.Diff(refused, got); diff != "" {
		t.Errorf("Refusal() mismatch (-want +got):\n%s", diff)
	}
	if _, ok := Refusal(planError(errors.New("no such procedure"))); ok {
		t.Error("Refusal() found one in another plan error")
	}
}
