package session

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// Resume prepares an opened session to continue its run: a run that already
// succeeded or completed cannot be resumed, an escalated one needs the person's
// guidance. The guidance goes into the next prompt and restarts the iteration
// counter; with adr (automatic when the run escalated on architecture) it is
// also recorded as an architecture decision under docs/adr/. On an error the
// session is closed.
func (s *Session) Resume(guidance string, adr bool) error {
	st, name := s.st, s.p.Name
	switch st.Status {
	case loop.StatusSucceeded, loop.StatusCompleted:
		s.Close()
		return fmt.Errorf("run %s already %s (%s); start a new one with 'agentloop run %s'", name, st.Status, st.Reason, st.Procedure)
	case loop.StatusEscalated:
		if guidance == "" {
			s.Close()
			return &UsageError{Err: fmt.Errorf("run %s is waiting for your answer to its escalation (%s): read %s, then resume with --guidance \"...\"",
				name, st.Reason, RelPath(s.p.WorkDir, filepath.Join(s.store.RunDir(name, st.RunID), "escalation.md")))}
		}
	}
	if summary := previousSummary(st); summary != "" {
		s.screen.Linef("%s", summary)
	}
	if guidance == "" {
		return nil
	}
	adr = adr || Architectural(st)
	loop.ApplyGuidance(st, loop.Guidance{Text: guidance, Architecture: adr})
	s.screen.Linef("Guidance recorded; the iteration counter starts again (spend so far is kept)")
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

// Settle ends an escalated run by the person's choice, without running
// anything: accept keeps the work tree as it is — the loop left it at the best
// checkpoint — and ends the run completed; otherwise the run ends aborted. The
// state and the event log record it; the session is closed.
func (s *Session) Settle(accept bool) error {
	defer s.Close()
	st, name := s.st, s.p.Name
	if st.Status != loop.StatusEscalated {
		return NotEscalated(name, st.Status)
	}
	out := loop.Settled(st, accept)
	status, reason := out.Status, out.Reason
	st.Status, st.Reason = status, reason
	if err := s.store.Save(st); err != nil {
		return fmt.Errorf("save the state of %s: %w", name, err)
	}
	fin := loop.Event{Time: s.pr.Now(), Iteration: st.Iteration,
		Data: loop.RunFinished{Status: status, Reason: reason, Iterations: st.TotalIterations, Wall: st.Spend.Wall}}
	if events, err := state.OpenEvents(filepath.Join(s.store.RunDir(name, st.RunID), "events.jsonl")); err == nil {
		if err := events.Append(fin); err != nil {
			s.screen.Warnf("events: %v", err)
		}
		events.Close()
	}
	s.screen.Event(fin)
	return nil
}

// NotEscalated is the answer to --accept or --abort for a run that does not
// wait for an answer to an escalation.
func NotEscalated(name string, status loop.Status) error {
	return &UsageError{Err: fmt.Errorf("run %s is %s, not waiting for an answer to an escalation: --accept and --abort end an escalated run", name, status)}
}

// Architectural reports whether the run escalated on an architectural question:
// the answer is then a decision worth an ADR.
func Architectural(st *loop.State) bool {
	if len(st.History) == 0 {
		return false
	}
	return slices.Contains(st.History[len(st.History)-1].Triggers, "architecture")
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// WriteADR records a human's architectural decision as docs/adr/NNNN-title.md
// of the work tree, and returns its path.
func WriteADR(workDir string, st *loop.State, guidance string) (string, error) {
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
	body := fmt.Sprintf("# %d. %s\n\nStatus: accepted\n\n## Context\n\nagentloop run %s (%s) escalated after %d iterations: %s\n\n## Decision\n\n%s\n\n## Consequences\n\nThe loop continues with this decision in every prompt of the run.\n",
		n, title, st.Name, st.RunID, st.TotalIterations, st.Reason, guidance)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(body)
	return path, err
}
