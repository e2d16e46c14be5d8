package temporal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/agentloop/agentloop/internal/state"
)

// UpdateSteer is the update that steers a running run's loop (agentloop guide,
// agentloop stop): what it carries is taken at the loop's next iteration
// boundary, as a local run takes its queue ([loop.Steerer]).
const UpdateSteer = "steer"

// steerChange is the version marker of the runs that take the steer update
// (a history recorded before has none, and replays without it).
const steerChange = "steer"

// Steer is the steer update's argument: guidance for the next iteration's
// prompt, or a stop after the current iteration.
type Steer struct {
	ID   string // unique: the guidance is applied once
	Text string `json:",omitempty"`
	Stop bool   `json:",omitempty"`
	At   time.Time
	By   string `json:",omitempty"`
}

// Validate is the update's own check: guidance of at most [MaxGuidance]
// bytes, or a stop alone.
func (s Steer) Validate() error {
	switch {
	case s.Stop:
		if s.Text != "" {
			return errors.New("a stop carries no guidance: give one")
		}
	case strings.TrimSpace(s.Text) == "":
		return errors.New("the guidance is empty: say what the loop should do next")
	case len(s.Text) > MaxGuidance:
		return fmt.Errorf("the guidance is %d bytes, more than %d", len(s.Text), MaxGuidance)
	case s.ID == "":
		return errors.New("the guidance has no ID")
	}
	return nil
}

// SteerAck is what the steer update answers: the iteration under way when it
// was queued (0: before the first).
type SteerAck struct{ Iteration int }

// validateSteer refuses to steer a run that waits for its answer (resume
// --guidance answers it) or whose loop ended.
func (w *wfEnv) validateSteer(_ workflow.Context, s Steer) error {
	switch {
	case w.over:
		return fmt.Errorf("run %s ended (%s); nothing to steer", w.st.Name, w.st.Status)
	case w.waiting != nil:
		return fmt.Errorf("run %s waits for your answer to its escalation: agentloop resume %s --guidance \"...\" --engine temporal", w.st.Name, w.st.Name)
	}
	return s.Validate()
}

// steer queues s for the loop's next iteration boundary.
func (w *wfEnv) steer(_ workflow.Context, s Steer) (SteerAck, error) {
	if s.Stop {
		w.queued.Stop = &state.StopRequest{At: s.At, By: s.By}
	} else if !slices.ContainsFunc(w.queued.Guidance, func(g state.Steer) bool { return g.ID == s.ID }) {
		w.queued.Guidance = append(w.queued.Guidance, state.Steer{ID: s.ID, Text: s.Text, At: s.At, By: s.By})
	}
	return SteerAck{Iteration: w.st.Iteration}, nil
}

// Steering implements [loop.Steerer]: what the steer update queued. A run of
// a history recorded before the update ([steerChange]) has nothing queued.
func (w *wfEnv) Steering(context.Context) (state.Steering, error) {
	if len(w.queued.Guidance) == 0 && w.queued.Stop == nil {
		return state.Steering{}, nil
	}
	if workflow.GetVersion(w.ctx, steerChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return state.Steering{}, nil
	}
	return state.Steering{Guidance: slices.Clone(w.queued.Guidance), Stop: w.queued.Stop}, nil
}

// Steered implements [loop.Steerer]: what the loop took leaves the queue.
func (w *wfEnv) Steered(_ context.Context, ids []string, stopped bool) {
	w.queued.Guidance = slices.DeleteFunc(w.queued.Guidance, func(g state.Steer) bool { return slices.Contains(ids, g.ID) })
	if stopped {
		w.queued.Stop = nil
	}
}

// SteerRun sends s to the run key (as for [Query]) and returns the iteration
// it was under way in; the error is the run's when it refuses it (waiting for
// an answer, ended).
func SteerRun(ctx context.Context, c client.Client, key string, s Steer) (SteerAck, error) {
	var ack SteerAck
	if err := s.Validate(); err != nil {
		return ack, err
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: WorkflowID(key), UpdateName: UpdateSteer, Args: []any{s},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, &ack)
	}
	if err != nil {
		name, _ := Unscoped(key)
		return ack, fmt.Errorf("steer run %s: %w", name, err)
	}
	return ack, nil
}

// Cancel cancels the run key's workflow (agentloop stop --now): its step's
// agent is stopped on its worker and the run ends interrupted.
func Cancel(ctx context.Context, c client.Client, key string) error {
	if err := c.CancelWorkflow(ctx, WorkflowID(key), ""); err != nil {
		name, _ := Unscoped(key)
		return fmt.Errorf("cancel run %s: %w", name, err)
	}
	return nil
}
