package temporal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/state"
)

// ActivityKeep writes the files a run keeps for a human (an iteration's
// decision.yaml and feedback.md, escalation.md and escalation.yaml, an
// architecture decision under docs/adr/) into the run folder and work tree of
// the worker holding the run, as the local engine writes them.
const ActivityKeep = "agentloop.keep"

// keepChange is the version marker of the runs that write their files: a
// history recorded before (without it) replays without the keep activities.
const keepChange = "keep-files"

// KeepInput is the keep activity's argument: one of the files to write.
type KeepInput struct {
	Run        RunRef
	Artifacts  *state.Artifacts  `json:",omitempty"` // an iteration's decision and feedback
	Escalation *state.Escalation `json:",omitempty"` // the escalation a human is asked to answer
	ADR        *ADR              `json:",omitempty"` // guidance to record as an architecture decision
}

// ADR is an answer recorded as an architecture decision.
type ADR struct {
	State    state.State // the run as it escalated (its name, reason, iterations)
	Guidance string
}

// keep writes a run's file on its worker; a file that cannot be written is a
// warning, as it is for the local engine, and the loop goes on.
func (w *wfEnv) keep(in KeepInput) { w.keepIn(w.ctx, in) }

// keepIn is keep under ctx.
func (w *wfEnv) keepIn(ctx workflow.Context, in KeepInput) {
	if workflow.GetVersion(ctx, keepChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	in.Run = w.in.Run
	queue := w.queue()
	opts := workflow.ActivityOptions{
		TaskQueue: queue, StartToCloseTimeout: time.Minute, RetryPolicy: infraRetry(),
	}
	if queue != "" {
		// Its worker gone, nobody else holds the run folder: the files are
		// left out rather than the loop held up.
		opts.ScheduleToStartTimeout = 2 * w.in.heartbeatTimeout()
	}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), ActivityKeep, in).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("the run's files were not written", "run", w.in.Run.Name, "error", err)
	}
}

// Keep is the keep activity.
func (s *Steps) Keep(ctx context.Context, in KeepInput) error {
	return ownError(ctx, s.keepFiles(ctx, in), keepAttempts, "agentloop.Keep")
}

func (s *Steps) keepFiles(ctx context.Context, in KeepInput) error {
	p, err := s.Plan(ctx, in.Run)
	if err != nil {
		return planError(err)
	}
	runDir, err := makeRunDir(p.StateDir, in.Run.Name, in.Run.RunID)
	if err != nil {
		return fmt.Errorf("run %s: %w", in.Run.Name, err)
	}
	var errs []error
	if in.Artifacts != nil {
		// An escalation carries its iteration's files: one not written
		// leaves the escalation's to write all the same.
		errs = append(errs, keepArtifacts(ctx, runDir, *in.Artifacts))
	}
	if in.Escalation != nil {
		if l := s.cached(in.Run.RunID); l != nil {
			// The engine that ran the steps adds what the run changed.
			errs = append(errs, l.WriteEscalation(ctx, *in.Escalation))
		} else {
			errs = append(errs, engine.WriteEscalation(runDir, *in.Escalation))
		}
	}
	if in.ADR != nil {
		path, err := engine.WriteADR(p.WorkDir, &in.ADR.State, in.ADR.Guidance)
		if err == nil {
			s.Log.Info("decision recorded", "run", in.Run.Name, "path", path)
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("run %s: %w", in.Run.Name, err)
	}
	return nil
}

// keepArtifacts writes an iteration's decision and feedback in its folder of
// the run folder runDir, made first: the iteration's step ran on a worker
// that is gone, or the files come before the run's next step.
func keepArtifacts(ctx context.Context, runDir string, a state.Artifacts) error {
	if err := state.EnsureDir(state.IterDir(runDir, cmp.Or(a.Seq, a.Iteration))); err != nil {
		return err
	}
	return (&engine.Local{RunDir: runDir}).Keep(ctx, a)
}

// cached is the engine of the run on this worker, if one ran its steps here.
func (s *Steps) cached(runID string) *engine.Local {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.runs[runID]; ok {
		return w.l
	}
	return nil
}

// registerKeep registers the keep activity of steps on w.
func registerKeep(w registry, steps *Steps) {
	w.RegisterActivityWithOptions(steps.Keep, activity.RegisterOptions{Name: ActivityKeep})
}
