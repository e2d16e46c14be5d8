package decide

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/state"
)

// Standing rules repeated in every feedback.
const (
	ruleTests = "Tests and acceptance criteria are the spec: do not edit, skip or weaken tests unless the task says so."
	ruleScope = "Keep the change minimal and inside the task's scope."
)

// feedback is the next prompt's feedback: what to do and why, where a rollback
// left the work tree and what fails there, what the gates
// found and what changed since the last iteration ([gateFeedback]), the
// reviewer's findings marked new or still unresolved, the lessons, and the
// standing rules. Each part is capped at FeedbackMaxLength; the gates' part is
// capped by the gate package itself, which keeps locations whole.
func (e *Engine) feedback(f *facts, ts []decision.Trigger, c choice, n state.Next, rolledBack string) string {
	if c.action == state.ActionRetry {
		return f.in.State.Feedback // same prompt again
	}
	if !c.action.Continues() {
		return ""
	}
	max := f.p.FeedbackMaxLength
	var parts []string
	add := func(s string, limit int) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, clip(s, limit))
		}
	}
	add(fmt.Sprintf("Decision: %s. %s", c.strategy, c.reason), max)
	add(rolledBack, max)
	add(instructions(f, ts, c, n), max)
	add(f.gateFeedback, len(f.gateFeedback))
	add(reviewFeedback(f.ev.Review, f.in.State.Feedback, f.cur.Failing), max)
	if len(n.Lessons) > 0 {
		add("Lessons from earlier iterations:\n- "+strings.Join(n.Lessons, "\n- "), max)
	}
	add(ruleTests+"\n"+ruleScope, max)
	return strings.Join(parts, "\n\n")
}

// instructions are the strategy's own words to the agent.
func instructions(f *facts, ts []decision.Trigger, c choice, n state.Next) string {
	var b []string
	switch c.action {
	case state.ActionSimplify:
		b = append(b, "Start afresh from the best state so far; the earlier approach did not work, try a different one.")
		if n.Focus != "" {
			b = append(b, "Make the smallest change that fixes this one failure first: "+n.Focus)
		}
	case state.ActionExpand:
		b = append(b, "Read these before changing code; the errors name them: "+strings.Join(n.Expand, ", "))
	}
	if t, ok := find(ts, decision.TriggerTestTampering); ok {
		switch {
		case t.Severity >= 0.9:
			b = append(b, "Restore the tests you weakened: "+t.Evidence+".")
			// The weakened tests hid these; the code must make them pass.
			if ref, _ := reference(f); len(ref) > 0 {
				labels := make([]string, 0, len(ref))
				for _, k := range ref {
					labels = append(labels, gate.Label(k))
				}
				b = append(b, "Until the code is fixed these still fail: "+clip(strings.Join(labels, ", "), f.p.FeedbackMaxLength))
			}
		case t.Severity >= 0.5:
			b = append(b, "You edited tests ("+t.Evidence+"): do not change what they expect unless the task asks for it.")
		}
	}
	if t, ok := find(ts, decision.TriggerScopeCreep); ok {
		b = append(b, "Revert what the task did not ask for: "+t.Evidence+".")
	}
	if t, ok := find(ts, decision.TriggerRegression); ok {
		b = append(b, "Regression: "+t.Evidence+".")
	}
	if t, ok := find(ts, decision.TriggerHallucination); ok && f.ev.Agent.Completed {
		b = append(b, "Do not claim completion: "+t.Evidence+".")
	}
	return strings.Join(b, "\n")
}

var severityRank = map[string]int{"blocker": 0, "major": 1, "minor": 2, "nit": 3}

// reviewFeedback lists at most 7 reviewer findings, blockers first, each marked
// new or still unresolved (it appeared in the previous feedback). Minor findings
// and nits are only listed when nothing else fails.
func reviewFeedback(r *evidence.Review, prevFeedback string, failing []string) string {
	if r == nil || r.Approved() || len(r.Findings) == 0 {
		return ""
	}
	fs := slices.Clone(r.Findings)
	slices.SortStableFunc(fs, func(a, b evidence.ReviewFinding) int {
		return cmp.Compare(rank(a.Severity), rank(b.Severity))
	})
	var lines []string
	for _, fd := range fs {
		if rank(fd.Severity) >= 2 && len(failing) > 0 {
			continue
		}
		mark := "new"
		if (fd.ID != "" && strings.Contains(prevFeedback, fd.ID)) || (fd.Message != "" && strings.Contains(prevFeedback, clip(fd.Message, 100))) {
			mark = "still unresolved"
		}
		where := ""
		if fd.File != "" {
			where = fmt.Sprintf(" %s:%d", fd.File, fd.Line)
		}
		id := ""
		if fd.ID != "" {
			id = " [" + fd.ID + "]"
		}
		line := fmt.Sprintf("- (%s, %s)%s%s %s", orText(fd.Severity, "major"), mark, id, where, clip(fd.Message, 100))
		if fd.FixHint != "" {
			line += " — " + clip(fd.FixHint, 80)
		}
		lines = append(lines, line)
		if len(lines) == 7 {
			break
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("Reviewer (%s):\n%s", r.Verdict, strings.Join(lines, "\n"))
}

func rank(sev string) int {
	if r, ok := severityRank[sev]; ok {
		return r
	}
	return 1
}

// gateFeedback renders the iteration's gate results for the next prompt: every
// failure the agent should work on, its own and those the baseline already had,
// with location and message, most important first, and what changed since the
// previous iteration (the baseline's, before the first). The comparison is the
// gate package's, over the gate keys kept in the state; nothing else computes it.
func gateFeedback(p Policy, gates []evidence.GateResult, st *state.State) string {
	var hist []map[string][]string
	base := map[string][]string{} // the baseline's failure keys by gate
	for _, g := range st.Baseline {
		for _, f := range g.Findings {
			base[g.Name] = append(base[g.Name], gate.Key(f))
		}
	}
	if st.BaselineDone { // the baseline is the state before the first iteration
		hist = append(hist, base)
	}
	for _, r := range st.History {
		keys := map[string][]string{}
		for _, g := range r.Gates {
			keys[g.Name] = slices.Clone(g.Keys)
			// Records of older builds keep only the agent's keys per gate; the
			// baseline's that still failed are in the record's Failing.
			for _, k := range base[g.Name] {
				if slices.Contains(r.Failing, k) && !slices.Contains(keys[g.Name], k) {
					keys[g.Name] = append(keys[g.Name], k)
				}
			}
		}
		hist = append(hist, keys)
	}
	return gate.Render(gates, gate.Deltas(gates, hist), gate.RenderOptions{MaxLength: p.FeedbackMaxLength, PerGate: p.GateFeedbackMaxLength})
}

// briefLead introduces the baseline's failures in the first prompt.
const briefLead = "Before any change in this run, agentloop ran the checks; they fail as follows. These failures are part of the task unless the task says otherwise."

// Brief implements [state.Decider]: the first iteration's feedback is what the
// baseline gates found, so that the first prompt carries the failures to work on.
// It is empty when the baseline found nothing failing.
func (e *Engine) Brief(baseline []evidence.GateResult) string {
	text := gateFeedback(e.p, baseline, &state.State{})
	if text == "" {
		return ""
	}
	return briefLead + "\n\n" + text + "\n\n" + ruleTests + "\n" + ruleScope
}
