package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// Resume prepares an opened session to continue its run: a run that already
// succeeded or completed cannot be resumed (but reopened with guidance,
// [Answer.Reopen]), an escalated one needs the person's guidance. The guidance goes into the next prompt and starts a new segment
// (the iteration counter starts again); with adr (automatic when the run
// escalated on architecture) it is also recorded as an architecture decision
// under docs/adr/. Either way the hand-off is kept in the run's history, and
// the run goes on from the work tree as the person left it ([ResumeTree]),
// which one line says. On an error the session is closed.
func (s *Session) Resume(ctx context.Context, o Answer) error {
	st, name := s.st, s.p.Name
	guidance, adr := o.Guidance, o.ADR
	if err := Over(st, ""); err != nil && (!o.Reopen || guidance == "") {
		s.Close()
		return err
	}
	switch st.Status {
	case state.StatusEscalated:
		if guidance == "" {
			s.Close()
			md := state.LatestEscalation(s.store.RunDir(name, st.RunID))
			if md == "" {
				md, _ = state.EscalationFiles(s.store.RunDir(name, st.RunID), st.Segment)
			}
			return &UsageError{Err: fmt.Errorf("run %s is waiting for your answer to its escalation (%s): read %s, then resume with --guidance \"...\"",
				name, st.Reason, RelPath(s.p.WorkDir, md))}
		}
	}
	if summary := previousSummary(st); summary != "" {
		s.screen.Linef("%s", summary)
	}
	s.screen.Linef("%s", ResumeTree(ctx, st, s.p.WorkDir, s.store.RunDir(name, st.RunID), o.UndoCut))
	if guidance == "" {
		s.handoff(state.AddHandoff(st, state.Handoff{Kind: state.HandoffResume, At: s.pr.Now(), By: s.pr.user()}))
		return nil
	}
	adr = adr || engine.Architectural(st)
	s.handoff(state.ApplyGuidance(st, state.Guidance{Text: guidance, Architecture: adr, At: s.pr.Now(), By: s.pr.user()}))
	s.screen.Linef("Guidance recorded; segment %d starts with the iteration counter at 0 (spend so far is kept; attempts go on from %d)", st.Segment, st.Attempts+1)
	if adr {
		path, err := engine.WriteADR(s.p.WorkDir, st, guidance)
		if err != nil {
			s.screen.Warnf("record the decision: %v", err)
		} else {
			s.screen.Linef("Decision recorded in %s", RelPath(s.p.WorkDir, path))
		}
	}
	return nil
}

// Answer is what a person says when resuming a run.
type Answer struct {
	Guidance string // the answer to an escalation, for the next prompt
	ADR      bool   // record the guidance as an architecture decision
	// UndoCut puts the work tree back where a cut attempt started, after the
	// usual backup ([ResumeTree]).
	UndoCut bool
	// Reopen lets a run that succeeded go on with Guidance, new evidence
	// found after it ended ([ResumeOptions.Reopen]).
	Reopen bool
}

// Resumable is whether a run can be resumed: one that succeeded or completed
// is over.
func Resumable(st *state.State) bool {
	return st.Status != state.StatusSucceeded && st.Status != state.StatusCompleted
}

// Settle ends an escalated run by the person's choice, without running an
// agent: accept puts the work tree at the run's best checkpoint (what the tree
// holds beyond the loop's last checkpoint is kept in a backup ref first) and
// ends the run completed; abort leaves the tree as it is and ends the run
// aborted. Both say which commit the tree is at. The state, the history and
// the event log record it; the session is closed.
func (s *Session) Settle(ctx context.Context, accept bool) error {
	defer s.Close()
	st, name := s.st, s.p.Name
	if st.Status != state.StatusEscalated {
		return NotEscalated(name, st.Status)
	}
	runDir := s.store.RunDir(name, st.RunID)
	events, err := state.OpenEvents(filepath.Join(runDir, "events.jsonl"))
	if err != nil {
		s.screen.Warnf("events will not be recorded: %v", err)
	} else {
		defer events.Close()
	}
	env := s.local(ctx, runDir, events)
	defer env.Close()
	tree := st.Tree
	if b := st.Best; accept && b != nil && b.Ref != "" && env.Work != nil {
		if _, err := env.Step(ctx, loop.StepRequest{Kind: loop.StepRollback, Seq: st.Attempts, Checkpoint: b.Ref, Expect: st.Tree, Why: "accept the best checkpoint"}); err != nil {
			return fmt.Errorf("accept run %s: put the work tree at its best checkpoint %s (%s): %w; nothing was changed: fix it and run the command again", name, b.Label(), b.Ref, err)
		}
		tree = b.Ref
		st.Tree = b.Ref
	}
	kind := state.HandoffAbort
	if accept {
		kind = state.HandoffAccept
	}
	h := state.AddHandoff(st, state.Handoff{Kind: kind, At: s.pr.Now(), By: s.pr.user(), Checkpoint: tree})
	out := loop.Settled(st, accept, tree)
	st.Status, st.Reason = out.Status, out.Reason
	if err := env.Save(ctx, st); err != nil {
		return fmt.Errorf("save the state of %s: %w", name, err)
	}
	now := s.pr.Now()
	for _, ev := range []state.Event{
		{Time: now, Iteration: st.Iteration, Segment: st.Segment, Data: h},
		{Time: now, Iteration: st.Iteration, Segment: st.Segment, Data: state.RunFinished{Status: out.Status, Reason: out.Reason, Iterations: st.TotalIterations, Wall: st.Spend.Wall}},
	} {
		if events != nil {
			if err := events.Append(ev); err != nil {
				s.screen.Warnf("events: %v", err)
			}
		}
		s.screen.Event(ev)
	}
	return nil
}

// NotEscalated is the answer to --accept or --abort for a run that does not
// wait for an answer to an escalation.
func NotEscalated(name string, status state.Status) error {
	return &UsageError{Err: fmt.Errorf("run %s is %s, not waiting for an answer to an escalation: --accept and --abort end an escalated run", name, status)}
}
