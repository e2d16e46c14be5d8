package decide

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/state"
)

// DecideCheck decides on an `iteration_check` document with the engine, as
// a loop would have: each attempt the document tells of (its history, then
// the present one) is one iteration, its test output read by [gate.Parse]
// and judged by [gate.Judge], its review a verdict; the earlier ones are
// decided and folded into the state in turn ([state.State.Fold]), and the
// engine's decision on the present one is the answer, in the specification's
// fields: proceed, retry (with the iteration it runs as and its feedback) or
// escalate (with the attempts, the pattern, one question and its options).
// An abort (a failure threshold, a budget) is none of the document's words:
// it escalates, since only a person can go on from there.
func (e *Engine) DecideCheck(c Check) decision.Document {
	attempts := append(append([]Check(nil), c.History...), c)
	spec := state.Spec{Name: c.TaskID, Task: c.TaskID, HasGates: true}
	spec.Limits.MaxIterations = c.MaxIterations
	if spec.Limits.MaxIterations == 0 {
		spec.Limits.MaxIterations = e.p.MaxIterations
	}
	for _, a := range attempts {
		spec.HasReviewer = spec.HasReviewer || a.Review.Status != "pending"
	}
	st := &state.State{Version: 1, Name: c.TaskID, Status: state.StatusRunning}
	var d state.Decision
	n := 0
	for i, a := range attempts {
		n = max(a.CurrentIteration, n+1)
		ev := attemptEvidence(n, a)
		d = e.Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: state.BudgetStatus(st, &ev)})
		if i < len(attempts)-1 {
			st.Fold(ev, i+1, state.StepResult{Iteration: ev}, d)
		}
	}
	return checkAnswer(attempts, d)
}

// attemptEvidence is what an attempt of the document shows, as the evidence
// of iteration n: one required gate, the tests, and the reviewer's verdict
// when it gave one. The document says nothing of the diff or the agent.
func attemptEvidence(n int, a Check) evidence.Iteration {
	g := gate.Gate{Name: "tests", Required: true, Format: "auto"}
	rep, _ := gate.Parse(strings.NewReader(a.Test.Output), gate.Options{Format: "auto"}) // a strings.Reader does not fail
	var res evidence.GateResult
	if a.Test.Status == "pass" {
		// The document's word is the verdict: a passing run's output is read
		// for its counts only.
		res = evidence.GateResult{Name: g.Name, Required: true, Passed: true, Format: rep.Format, Tests: rep.Tests}
	} else {
		res = gate.Judge(g, 1, rep, nil)
	}
	ev := evidence.Iteration{N: n, Gates: []evidence.GateResult{res}}
	switch a.Review.Status {
	case "approve":
		ev.Review = &evidence.Review{Verdict: evidence.VerdictApprove, Summary: a.Review.Feedback}
	case "reject":
		ev.Review = rejection(a.Review.Feedback)
	}
	return ev
}

// rejection is a reviewer's free-text rejection as a verdict: a request for
// changes, one major finding per line or sentence, and the tags its words
// name, read as a structured reviewer's findings are ([concernNamed]; a
// structured reviewer states them; the document's reviewer cannot).
func rejection(fb string) *evidence.Review {
	r := &evidence.Review{Verdict: evidence.VerdictRequestChanges, Summary: clip(firstLine(fb), 160)}
	for i, s := range sentences(fb) {
		r.Findings = append(r.Findings, evidence.ReviewFinding{ID: fmt.Sprintf("r%d", i+1), Severity: "major", Message: s})
	}
	for _, id := range []string{decision.TriggerSecurity, decision.TriggerConflict, decision.TriggerArchitecture, decision.TriggerScopeCreep} {
		if _, ok := concernNamed(r, id); ok {
			r.Tags = append(r.Tags, id)
		}
	}
	return r
}

// sentences splits free text into its lines and sentences, list markers off.
func sentences(fb string) []string {
	var out []string
	for _, line := range strings.Split(fb, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•0123456789.) "))
		for _, s := range strings.SplitAfter(line, ". ") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, clip(s, 140))
			}
		}
	}
	return out
}

// checkAnswer is the engine's decision in the document's fields.
func checkAnswer(attempts []Check, d state.Decision) decision.Document {
	b := decision.Body{TaskID: attempts[len(attempts)-1].TaskID}
	doc := d.Document
	switch {
	case d.Action == state.ActionProceed || d.Action == state.ActionComplete:
		b.Action, b.Message = "proceed", d.Message
	case d.Action == state.ActionEscalate || d.Action == state.ActionAbort:
		b.Action, b.Reason = "escalate", d.Message
		if esc := d.Escalation; esc != nil && esc.Report != nil {
			r := esc.Report
			b.Context = &decision.Context{PatternDetected: r.Pattern}
			for i, h := range r.History {
				// What the agent did is not in the document: the line says
				// what it does say, the review in its words.
				line := fmt.Sprintf("iteration %d: tests %s", h.N, h.Gates)
				if i < len(attempts) && attempts[i].Review.Status != "pending" {
					line += "; review " + attempts[i].Review.Status
				}
				b.Context.AttemptsSummary = append(b.Context.AttemptsSummary, line+"; "+h.Decision)
			}
			b.Question, b.Options = r.Question, decision.OptionLines(r.Options)
		}
	default:
		b.Action = "retry"
		if doc != nil && doc.Decision.Next != nil {
			b.Iteration = doc.Decision.Next.Iteration
		}
		if doc != nil {
			b.Feedback = doc.Decision.Feedback
		}
	}
	return decision.Document{Decision: b}
}
