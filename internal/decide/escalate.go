package decide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/state"
)

// report writes the escalation document of an escalating decision.
func (e *Engine) report(f *facts, ts []decision.Trigger, c choice, d state.Decision) decision.EscalationReport {
	r := decision.EscalationReport{
		Task:     orText(f.in.Spec.Task, orText(f.in.Spec.Name, orText(f.in.Spec.Procedure, "this run"))),
		Reason:   d.Message,
		Class:    c.class,
		Feedback: strings.TrimSpace(f.gateFeedback + "\n\n" + reviewFeedback(f.ev.Review, f.in.State.Feedback, nil)),
		Pattern:  patternOf(f, ts),
		Triggers: triggerLines(ts),
	}
	for _, p := range f.past {
		r.History = append(r.History, row(p, p.Decision, p.Strategy, p.Summary))
	}
	r.History = append(r.History, row(f.cur, string(c.action), c.strategy, "")) // why: said once, above the table
	if rv := f.ev.Review; rv != nil && len(rv.Findings) > 0 {
		r.History[len(r.History)-1].Review += ": " + clip(rv.Findings[0].Message, 80)
	}
	switch b, ok := bestPoint(rollbackTargets(f)); {
	case ok && b.Quality > f.cur.Quality:
		r.Best = fmt.Sprintf("iteration %d, quality %.2f, %s (the work tree is rolled back to it)", b.N, b.Quality, b.Ref)
	case f.weakened != "":
		r.Best = fmt.Sprintf("none: iteration %d weakened the tests (%s), so it cannot be accepted", f.cur.N, f.weakened)
	case f.cur.Quality <= 0:
		r.Best = "none: no iteration built and ran the checks"
	default:
		r.Best = fmt.Sprintf("iteration %d (this one), quality %.2f", f.cur.N, f.cur.Quality)
	}
	if f.in.Spec.HasReviewer && f.ev.Review != nil {
		r.Disagreement = disagreement(f)
	}
	if c.class == decision.ClassThreshold {
		r.Pattern = thresholdPattern(f, ts)
	}
	r.Question, r.Options, r.Recommendation = ask(f, ts, c)
	return r
}

func row(p point, action, strategy, why string) decision.HistoryRow {
	gates := "passed"
	if len(p.Failing) > 0 {
		gates = fmt.Sprintf("%d failing: %s", len(p.Failing), first(p.Failing))
	} else if p.Quality == 0 {
		gates = "did not run or build"
	}
	if strategy != "" && strategy != action {
		action += " (" + strategy + ")"
	}
	if why != "" {
		action += ": " + clip(why, 80)
	}
	did := "changed nothing"
	if p.Lines > 0 || p.DiffHash != "" {
		did = "changed " + plural(p.Lines, "line")
	}
	if p.AgentExit != 0 {
		did += fmt.Sprintf(", agent exit %d", p.AgentExit)
	}
	cost := "unknown"
	if p.CostKnown {
		cost = fmt.Sprintf("$%.2f", p.Cost)
	}
	return decision.HistoryRow{
		N: p.N, Did: did, Gates: gates, Review: p.Review,
		Decision: action, Failing: len(p.Failing), Quality: p.Quality, Cost: cost,
	}
}

func triggerLines(ts []decision.Trigger) []string {
	var out []string
	for _, t := range ts {
		out = append(out, fmt.Sprintf("%s (severity %.2f): %s", t.ID, t.Severity, t.Evidence))
	}
	return out
}

// patternOf names the loop's pattern: a stuck or oscillation trigger, else a
// failure common to every iteration, else how much the failures moved.
func patternOf(f *facts, ts []decision.Trigger) string {
	if t, ok := firstOf(ts, decision.TriggerOscillation, decision.TriggerChurn, decision.TriggerStuck, decision.TriggerPlateau, decision.TriggerRegression); ok {
		switch t.ID {
		case decision.TriggerPlateau: // its evidence is the detector's figures
			return fmt.Sprintf("no progress: the best result has not improved for %s", plural(stalled(f), "iteration"))
		case decision.TriggerChurn:
			return "churn: " + t.Evidence
		}
		return t.Evidence
	}
	if k := common(f.all); k != "" && len(f.all) > 1 {
		return fmt.Sprintf("%s failed in all %d iterations", gate.Label(k), len(f.all))
	}
	distinct := map[string]bool{}
	for _, p := range f.all {
		if p.FP != "" {
			distinct[p.FP] = true
		}
	}
	if len(distinct) > 1 {
		return fmt.Sprintf("the failures changed in every iteration (%d distinct failure sets)", len(distinct))
	}
	return ""
}

func common(ps []point) string {
	if len(ps) == 0 {
		return ""
	}
	for _, k := range ps[len(ps)-1].Failing {
		all := true
		for _, p := range ps {
			all = all && slices.Contains(p.Failing, k)
		}
		if all {
			return k
		}
	}
	return ""
}

func disagreement(f *facts) string {
	r := f.ev.Review
	if r.Approved() && len(f.failing) > 0 {
		return fmt.Sprintf("the reviewer approved, but %d gate failures remain", len(f.failing))
	}
	var asks []string
	for _, fd := range r.Findings {
		if rank(fd.Severity) <= 1 {
			asks = append(asks, clip(fd.Message, 120))
		}
	}
	if len(asks) == 0 {
		return "the reviewer asks for changes (" + orText(r.Summary, "no summary") + ") that the implementer's iterations did not make"
	}
	return fmt.Sprintf("the reviewer keeps asking: %s; the implementer's %d rounds did not satisfy it",
		strings.Join(asks[:min(3, len(asks))], "; "), reviewRounds(f))
}

var (
	optResume  = decision.Option{Label: "Resume with your guidance", TradeOff: "the loop continues from the best checkpoint with your answer in the prompt and the counter reset; spend so far is kept"}
	optAccept  = decision.Option{Label: "Accept the best checkpoint as it is", TradeOff: "no more spend; what still fails stays for a person to finish", Resume: "--accept"}
	optAbort   = decision.Option{Label: "Abort the run", TradeOff: "nothing more is spent and nothing is merged; the checkpoints stay for reference", Resume: "--abort"}
	optApprove = decision.Option{Label: "Approve the change as it is", TradeOff: "fastest; you take responsibility for the risk named above"}

	// Without checkpoints (outside git, or git.checkpoint off) there is no
	// best checkpoint to continue from, accept or keep: only the work tree.
	optResumeTree = decision.Option{Label: "Resume with your guidance", TradeOff: "the loop continues from the work tree as it is (checkpoints are off) with your answer in the prompt and the counter reset; spend so far is kept"}
	optAcceptTree = decision.Option{Label: "Accept the work tree as it is", TradeOff: "no more spend; what still fails stays for a person to finish", Resume: "--accept"}
	optAbortTree  = decision.Option{Label: "Abort the run", TradeOff: "nothing more is spent; the work tree stays as the loop left it", Resume: "--abort"}
)

// options are the resume, accept and abort options of an escalation, worded
// for whether the engine keeps checkpoints.
func options(f *facts) (resume, accept, abort decision.Option) {
	if !f.checkpoints() {
		return optResumeTree, optAcceptTree, optAbortTree
	}
	return optResume, optAccept, optAbort
}

// ask forms the ONE question for the human, the options and a recommendation.
func ask(f *facts, ts []decision.Trigger, c choice) (string, []decision.Option, string) {
	t, _ := find(ts, c.class)
	resume, accept, abort := options(f)
	switch c.class {
	case decision.TriggerSecurity:
		return "Is this security-relevant change intended and safe to keep (" + t.Evidence + ")?",
			[]decision.Option{optApprove, {Label: "Keep the agent away from it", TradeOff: "resume with guidance naming what it must not touch; the task may take longer"}, abort},
			"Review the flagged change yourself before anything else; resume with guidance if it is not needed."
	case decision.TriggerArchitecture:
		return "May the change alter the architecture (" + t.Evidence + "), or must it work within the current design?",
			[]decision.Option{{Label: "Approve the change", TradeOff: "recorded as an ADR; later work builds on the new structure"},
				{Label: "Stay within the current design", TradeOff: "resume with that guidance; the fix may be more code but keeps the boundaries"}, abort},
			"Decide on the design change explicitly; if unsure, keep the current design."
	case decision.TriggerConflict:
		return "Which requirement wins: " + t.Evidence + "?",
			[]decision.Option{{Label: "The first requirement wins", TradeOff: "the other test or criterion must be changed by a person"},
				{Label: "The second requirement wins", TradeOff: "the first must be changed by a person"},
				{Label: "Both hold; clarify how", TradeOff: "resume with guidance explaining how both can be met"}},
			"Clarify the requirement; the agent cannot resolve a contradiction by iterating."
	case decision.TriggerScopeCreep:
		return "The agent keeps changing what the task did not ask for (" + t.Evidence + "): widen the task's scope, or hold it to the task?",
			[]decision.Option{{Label: "Widen the scope", TradeOff: "the extra changes stay; review them as part of this task"},
				{Label: "Hold it to the task", TradeOff: "resume with guidance listing what is out of bounds"}, abort},
			"Hold the agent to the task unless the extra change is needed for it."
	case decision.TriggerTestTampering:
		return "The agent weakened the tests again (" + t.Evidence + "): are those tests wrong, or must the code satisfy them?",
			[]decision.Option{{Label: "The tests are right", TradeOff: "resume with that guidance; the agent must fix the code"},
				{Label: "The tests are wrong", TradeOff: "resume with guidance that names the tests to remove and says to remove them, or accept the tree as it is"}, abort},
			"Check the tests it weakened; usually the code is what must change."
	case decision.TriggerMovedBranch:
		return "The agent changed git itself (" + t.Evidence + "); agentloop put back what it could. May it run git commands that move the branch or history, or must it leave git to agentloop?",
			[]decision.Option{{Label: "Leave git to agentloop", TradeOff: "resume with guidance that the agent must not commit, switch, reset or delete refs; its work so far stays in the work tree"},
				accept, abort},
			"Read what it did and the iteration's diff; resume with guidance that forbids git commands which move the branch."
	case decision.ClassNoVerdict:
		return "The gates pass but the reviewer gave no readable verdict: do you approve the change?",
			[]decision.Option{optApprove, {Label: "Ask for changes", TradeOff: "resume with your review as guidance; another iteration"}, abort},
			"Read the diff and decide; the gates alone do not cover what the reviewer checks."
	case decision.ClassReview:
		return "The reviewer and the implementer do not converge: is the reviewer's demand part of this task?",
			[]decision.Option{{Label: "The reviewer is right", TradeOff: "resume with guidance to do what the reviewer asks"},
				{Label: "Accept without it", TradeOff: "the reviewer's concern is recorded but not addressed", Resume: "--accept"}, abort},
			"Read the core disagreement; side with the reviewer when the concern is about correctness."
	}
	opts := []decision.Option{resume, accept, abort}
	if !acceptable(f) {
		// Nothing to accept: no checkpoint ran the checks without weakening them.
		opts = []decision.Option{resume, abort}
	}
	switch c.class {
	case decision.TriggerChurn:
		t, _ := find(ts, decision.TriggerChurn)
		return "The agent trades one failure for another (" + t.Evidence + "). What must the code do so that all of them pass at once?", opts,
			"Resume with a hint on what the tests share: the change that fixes one keeps breaking another."
	case decision.ClassThreshold:
		return thresholdQuestion(f, ts, opts)
	}
	if c.class == decision.TriggerOscillation {
		t, _ := find(ts, decision.TriggerOscillation)
		return "The agent goes round: " + t.Evidence + ". What must the code do so that both pass?", opts,
			"Both tests stand unless one is wrong: resume with a hint on how both can hold."
	}
	if a := f.ev.Agent; a.TimedOut || a.IdleTimedOut {
		return timedOut(f, opts)
	}
	if s, ok := steady(f); ok && c.class == decision.TriggerMaxIterations {
		return goOn(f, s, opts)
	}
	key := gate.Label(focus(f))
	q := "What does the agent miss to make the remaining failures pass?"
	if key != "" {
		q = fmt.Sprintf("What does the agent miss about %s, which kept failing?", key)
	}
	rec := "Resume with a hint about the expected behaviour of the stubborn failure."
	if f.cur.Quality >= 0.9 {
		rec = "Accept the best checkpoint and finish the rest by hand; it is close."
		if !f.checkpoints() {
			rec = "Accept the work tree and finish the rest by hand; it is close."
		}
	}
	return q, opts, rec
}
