package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// Resume prepares an opened session to continue its run: a run that already
// succeeded or completed cannot be resumed, an escalated one needs the person's
// guidance. The guidance goes into the next prompt and starts a new segment
// (the iteration counter starts again); with adr (automatic when the run
// escalated on architecture) it is also recorded as an architecture decision
// under docs/adr/. Either way the hand-off is kept in the run's history, and
// the run goes on from the work tree as the person left it ([ResumeTree]),
// which one line says. On an error the session is closed.
func (s *Session) Resume(ctx context.Context, o Answer) error {
	st, name := s.st, s.p.Name
	guidance, adr := o.Guidance, o.ADR
	if err := Over(st, ""); err != nil {
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
	adr = adr || Architectural(st)
	s.handoff(state.ApplyGuidance(st, state.Guidance{Text: guidance, Architecture: adr, At: s.pr.Now(), By: s.pr.user()}))
	s.screen.Linef("Guidance recorded; segment %d starts with the iteration counter at 0 (spend so far is kept; attempts go on from %d)", st.Segment, st.Attempts+1)
	if adr {
		path, err := WriteADR(s.p.WorkDir, st, guidance)
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

// Architectural reports whether the run escalated on an architectural question:
// the answer is then a decision worth an ADR.
func Architectural(st *state.State) bool {
	if len(st.History) == 0 {
		return false
	}
	return slices.Contains(st.History[len(st.History)-1].Triggers, decision.TriggerArchitecture)
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// WriteADR records a human's architectural decision as docs/adr/NNNN-title.md
// of the work tree, and returns its path.
func WriteADR(workDir string, st *state.State, guidance string) (string, error) {
	dir := filepath.Join(workDir, "docs", "adr")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	n := 1
	for _, e := range entries {
		var k int
		if _, err := fmt.Sscanf(e.Name(), "%04d-", &k); err == nil && k >= n {
			n = k + 1
		}
	}
	title := st.Reason
	if title == "" {
		title = "decision for " + st.Name
	}
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(slug) > 50 {
		slug = strings.Trim(slug[:50], "-")
	}
	path := filepath.Join(dir, fmt.Sprintf("%04d-%s.md", n, slug))
	body := fmt.Sprintf("# %d. %s\n\nStatus: accepted\n\n## Context\n\nagentloop run %s (%s) escalated after %d iterations: %s\n%s\n## Decision\n\n%s\n\n## Consequences\n\nThe loop continues with this decision in every prompt of the run.\n",
		n, title, st.Name, st.RunID, st.TotalIterations, st.Reason, earlierAnswers(st, guidance), guidance)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(body)
	return path, err
}

// earlierAnswers recalls, for an architecture decision, the guidance the run
// was given before this answer (each with its segment, who and when): the
// decision is taken in their light. Empty when there was none.
func earlierAnswers(st *state.State, answer string) string {
	hs := st.Handoffs
	// The answer itself is the last hand-off when it was recorded already.
	if n := len(hs); n > 0 && hs[n-1].Kind == state.HandoffGuidance && hs[n-1].Text == answer {
		hs = hs[:n-1]
	}
	var b strings.Builder
	for _, h := range hs {
		if h.Kind != state.HandoffGuidance {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nEarlier answers in this run:\n\n")
		}
		who := ""
		if h.By != "" {
			who = " from " + h.By
		}
		fmt.Fprintf(&b, "- segment %d, guidance%s at %s (after attempt %d):\n  > %s\n", h.Segment, who, h.At.UTC().Format("2006-01-02 15:04 UTC"), h.After,
			strings.ReplaceAll(strings.TrimSpace(h.Text), "\n", "\n  > "))
	}
	return b.String()
}
