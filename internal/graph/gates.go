package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/textcut"
)

// GateRunner runs a task's required gates in a tree: the plan's one gate
// runner (loop.GateRunner) is one.
type GateRunner interface {
	RunGates(ctx context.Context, workDir, logDir string, baseline []evidence.GateResult) ([]evidence.GateResult, error)
}

// Gates is the check of a task's required gates on a merged result, run by
// runner (the plan's, plan.Plan.MergeGateRunner: its redaction and sandbox),
// each judged as the task's loop judges it, against the baseline of the
// task's run; their logs go under logDir. It is nil when runner is (the plan
// has no required gate).
func Gates(runner GateRunner, baseline []evidence.GateResult, logDir string) GateCheck {
	if runner == nil {
		return nil
	}
	return func(ctx context.Context, dir string) (bool, string, error) {
		if err := state.EnsureDir(logDir); err != nil {
			return false, "", fmt.Errorf("create the folder of the gates' logs: %w", err)
		}
		res, err := runner.RunGates(ctx, dir, logDir, baseline)
		if err != nil {
			return false, "", err
		}
		return GatesPassed(res)
	}
}

// GatesPassed says whether every required gate of res passed, else which did
// not and how: a gate that could not run is an error (the environment's
// problem, not the task's).
func GatesPassed(res []evidence.GateResult) (ok bool, summary string, err error) {
	var failed []string
	for _, g := range res {
		if !g.Required || g.Passed {
			continue
		}
		if g.Infra {
			return false, "", fmt.Errorf("gate %s (%s) could not run: %s", g.Name, g.Command, g.InfraReason)
		}
		failed = append(failed, gateFailure(g))
	}
	return len(failed) == 0, strings.Join(failed, "; "), nil
}

// gateFailure says in one line how the gate g failed: its failing tests or
// findings, else its exit code and last line of output.
func gateFailure(g evidence.GateResult) string {
	s := fmt.Sprintf("%s (%s) fails", g.Name, g.Command)
	var what []string
	for _, f := range g.Findings {
		if len(what) == 3 {
			what = append(what, fmt.Sprintf("and %d more", len(g.Findings)-3))
			break
		}
		w := f.ID
		if w == "" || f.Kind == evidence.KindGate { // a failure nothing parsed: its exit and output
			w = f.Message
		}
		if f.File != "" {
			w = fmt.Sprintf("%s (%s:%d)", w, f.File, f.Line)
		}
		what = append(what, w)
	}
	if len(what) > 0 {
		return s + ": " + strings.Join(what, ", ")
	}
	s += fmt.Sprintf(" with exit code %d", g.ExitCode)
	if tail := strings.TrimSpace(g.Tail); tail != "" {
		lines := strings.Split(tail, "\n")
		s += ": " + textcut.Runes(strings.TrimSpace(lines[len(lines)-1]), 200)
	}
	return s
}

// MergeLogDir is a new folder in the run folder runDir for the logs of the
// gates run on a merged result: merge-1, merge-2, …, one per try, so none is
// written over.
func MergeLogDir(runDir string) string {
	for n := 1; ; n++ {
		dir := filepath.Join(runDir, fmt.Sprintf("merge-%d", n))
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return dir
		}
	}
}
