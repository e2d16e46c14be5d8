package decide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/state"
)

// build turns the chosen action into the full decision.
func (e *Engine) build(f *facts, ts []decision.Trigger, c choice, v verdict) state.Decision {
	st := f.in.State
	d := state.Decision{
		Action:      c.action,
		Strategy:    c.strategy,
		Triggers:    ts,
		Quality:     f.cur.Quality,
		Failing:     f.failing,
		Fingerprint: f.cur.FP,
		Message:     said(f, ts, c),
		Succeeded:   !v.failed,
		Budgets:     c.budgets,
		OutsideTask: f.aside,
	}
	switch {
	case v.label == "" || strings.Contains(d.Message, v.label):
		// Nothing to add, or said already ("agent timed out after 10m0s").
	case c.action.Continues():
		d.Message = v.label + "; " + d.Message
	case c.action == state.ActionProceed:
		d.Message = d.Message + "; " + v.label // flaky: failed then passed
	case c.action == state.ActionEscalate && f.ev.Agent.Failed():
		// What ended the last attempt, beside why the loop stops: "max
		// iterations reached: …; iteration 2: agent timed out after 3s".
		d.Message += fmt.Sprintf("; iteration %d: %s", f.ev.N, v.label)
	}
	bestQ := -1.0
	if st.Best != nil {
		bestQ = st.Best.Quality
	}
	for _, p := range f.past {
		bestQ = max(bestQ, p.Quality)
	}
	if f.cur.Quality > bestQ && f.cur.Quality > 0 {
		// The loop fills Ref with this iteration's checkpoint (the decider does not see it).
		d.Best = &state.Checkpoint{Iteration: f.ev.N, Quality: f.cur.Quality}
	}
	d.Rollback = rollbackRef(f, c)
	if d.Rollback != "" && c.action.Continues() {
		d.Message += "; rolled back to " + d.Rollback
	}
	d.Next = e.next(f, c)
	d.Feedback = e.feedback(f, ts, c, d.Next, rolledBackTo(f, d.Rollback))
	doc := e.document(f, ts, c, d)
	if c.action == state.ActionEscalate {
		rep := e.report(f, ts, c, d)
		d.Escalation = &state.Escalation{Reason: d.Message, Question: rep.Question, Options: decision.OptionLines(rep.Options), Report: &rep}
		doc.Decision.Question = rep.Question
		doc.Decision.Options = decision.OptionLines(rep.Options)
		doc.Decision.Context = &decision.Context{AttemptsSummary: rep.AttemptsSummary(), PatternDetected: rep.Pattern}
	}
	d.Document = &doc
	return d
}

// progressed reports whether a failing iteration still moved forward: fewer
// failures than the previous one, or a new best quality.
func progressed(f *facts) bool {
	past := f.seq[:len(f.seq)-1]
	if len(past) == 0 {
		return false
	}
	prev := past[len(past)-1]
	if len(f.cur.Failing) < len(prev.Failing) {
		return true
	}
	best := 0.0
	for _, p := range f.past {
		best = max(best, p.Quality)
	}
	return f.cur.Quality >= best+f.p.Epsilon
}

// rollbackRef names the best checkpoint to restore on regression, simplify and on
// stopping, when it is better than the present.
func rollbackRef(f *facts, c choice) string {
	switch {
	case c.action == state.ActionProceed, c.action == state.ActionRetry, c.action == state.ActionExpand,
		c.action == state.ActionRefine && c.rule != RuleRegression:
		return ""
	}
	st := f.in.State
	b, ok := bestPoint(rollbackTargets(f))
	if !ok || b.Quality <= f.cur.Quality {
		if st.Best != nil && st.Best.Ref != "" && st.Best.Quality > f.cur.Quality && (st.Floor == 0 || st.Best.Seq > st.Floor) {
			return st.Best.Ref
		}
		return ""
	}
	return b.Ref
}

// rollbackTargets are the past iterations whose checkpoints a rollback may go
// back to: those after the floor ([state.State.Floor]). A checkpoint from
// before a resume that kept what agentloop did not record (a person's edits)
// is none: going back to it would take the person's work out of the tree.
func rollbackTargets(f *facts) []point {
	floor := f.in.State.Floor
	if floor == 0 {
		return f.past
	}
	var since []point
	for _, p := range f.past {
		if p.Seq > floor {
			since = append(since, p)
		}
	}
	return since
}

// rolledBackTo says, for a decision that rolls the work tree back, to which
// iteration and what fails there: the gates' feedback describes the tree that
// was just discarded, and the next iteration works on this one.
func rolledBackTo(f *facts, ref string) string {
	if ref == "" {
		return ""
	}
	for _, p := range f.past {
		if p.Ref != ref {
			continue
		}
		if len(p.Failing) == 0 {
			return fmt.Sprintf("The work tree was rolled back to iteration %d, where the required checks passed.", p.N)
		}
		labels := make([]string, 0, len(p.Failing))
		for _, k := range p.Failing {
			labels = append(labels, gate.Label(k))
		}
		return fmt.Sprintf("The work tree was rolled back to iteration %d, the best so far; what fails there: %s",
			p.N, clip(strings.Join(labels, ", "), f.p.FeedbackMaxLength))
	}
	return "The work tree was rolled back to the best checkpoint so far (" + ref + ")."
}

// next is what the next iteration is asked to do.
func (e *Engine) next(f *facts, c choice) state.Next {
	prev := f.in.State.Next
	n := state.Next{Strategy: c.strategy, Attempt: attempt(f), Agent: prev.Agent, Timeout: prev.Timeout}
	if !c.action.Continues() {
		n.Strategy = ""
		return n
	}
	if !c.await.IsZero() {
		n.Agent, n.AwaitReset = "", c.await
	}
	switch c.action {
	case state.ActionSimplify:
		n.Attempt++
		n.Lessons = lessons(f, 3)
		n.Focus = gate.Label(focus(f))
		if k := countStrategy(f.past, "simplify"); k >= 1 && len(f.p.Fallback) > 0 {
			n.Agent = f.p.Fallback[(k-1)%len(f.p.Fallback)]
		}
	case state.ActionExpand:
		n.Expand = expandList(f)
		n.Lessons = lessons(f, 3)
		if countStrategy(f.past, "expand") == 0 {
			if t := expandTimeout(f.in.Spec.Limits.IterationTimeout); t > 0 {
				n.Timeout = state.MillisOf(t)
			}
		}
	}
	return n
}

// lessons are one line per failed iteration, newest last, the present included:
// what was tried and what it left failing.
func lessons(f *facts, k int) []string {
	var out []string
	for i, p := range f.all {
		if p.Succeeded && i < len(f.all)-1 {
			continue
		}
		what := "did not meet the goal"
		switch {
		case len(p.Failing) > 0 && i > 0 && slices.Contains(f.all[i-1].Failing, p.Failing[0]):
			what = fmt.Sprintf("%s still failing", clip(gate.Label(p.Failing[0]), 80))
		case len(p.Failing) > 0:
			what = fmt.Sprintf("%s now failing", clip(p.Failing[0], 80))
		case p.Review == "request_changes" || p.Review == "reject":
			what = "the reviewer did not approve"
		}
		if n := len(p.Failing); n > 1 {
			what += fmt.Sprintf(" (+%d more)", n-1)
		}
		how := "first try"
		if i > 0 && f.all[i-1].Strategy != "" {
			how = f.all[i-1].Strategy
		}
		change := "no change"
		if p.Lines > 0 {
			change = "changed " + plural(p.Lines, "line")
		}
		trig := ""
		if extra := slices.DeleteFunc(slices.Clone(p.Triggers), func(id string) bool {
			return id == decision.TriggerRequirementUnmet || id == decision.TriggerValidationFailure
		}); len(extra) > 0 {
			trig = "; " + strings.Join(extra[:min(2, len(extra))], ", ")
		}
		out = append(out, fmt.Sprintf("iteration %d (%s, %s): %s%s", p.N, how, change, what, trig))
	}
	if len(out) > k {
		out = out[len(out)-k:]
	}
	return out
}

// focus picks one failure to work on: the one failing in the most iterations (the
// stubborn one), ties broken by key order.
func focus(f *facts) string {
	if len(f.cur.Failing) == 0 {
		return ""
	}
	best, bestN := "", -1
	for _, k := range f.cur.Failing {
		n := 0
		for _, p := range f.all {
			if slices.Contains(p.Failing, k) {
				n++
			}
		}
		if n > bestN {
			best, bestN = k, n
		}
	}
	return best
}

// expandList is the symbols the errors name, then the files of the findings.
func expandList(f *facts) []string {
	out := namedSymbols(f.ev)
	for _, g := range f.ev.Gates {
		for _, fd := range g.Findings {
			if fd.File != "" && !slices.Contains(out, fd.File) && len(out) < 10 {
				out = append(out, fd.File)
			}
		}
	}
	return out
}

func proceedReason(f *facts) string {
	s := "all required gates passed"
	if r := f.ev.Review; r != nil && r.Approved() {
		s += " and the reviewer approved"
		if r.Score > 0 { // 0: the reviewer gave no score
			s += fmt.Sprintf(" (score %s)", num(r.Score))
		}
	}
	if len(f.aside) > 0 {
		s += fmt.Sprintf("; failing before the run, outside the task: %s", labels(f.aside))
	}
	return s
}

// labels names failure keys for people.
func labels(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = gate.Label(k)
	}
	return strings.Join(out, ", ")
}

func refineReason(f *facts, ts []decision.Trigger) string {
	switch {
	case agentFailed(f.ev.Agent):
		// The gates judged a tree the agent did not finish: its outcome is the news.
		return "agent " + f.ev.Agent.Summary()
	case len(f.cur.Failing) > 0:
		return fmt.Sprintf("%s to fix: %s", plural(len(f.cur.Failing), "failure"), first(f.cur.Failing))
	case f.ev.Review != nil && !f.ev.Review.Approved():
		return "the reviewer asked for changes"
	case len(ts) > 0:
		return ts[0].ID + ": " + ts[0].Evidence
	}
	return "the goal is not met yet"
}

// agentFailed reports whether the agent itself failed, not by a rate limit or a
// transient error (those are waited out and retried).
func agentFailed(a evidence.AgentResult) bool {
	return a.Failed() && !a.RateLimited && !a.Transient
}
