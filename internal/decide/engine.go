package decide

import (
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// Engine is agentloop's decision engine. It is pure: the same input gives the same
// decision, with no I/O, clock or randomness.
type Engine struct {
	p Policy
}

// New returns an engine applying p. Zero or negative numeric fields take their
// defaults; booleans cannot tell "unset" from false, so start from
// [DefaultPolicy] and change what the configuration says.
func New(p Policy) *Engine { return &Engine{p: p.withDefaults()} }

var _ state.Decider = (*Engine)(nil)

// Policy returns the policy the engine applies.
func (e *Engine) Policy() Policy { return e.p }

func (p Policy) withDefaults() Policy {
	d := DefaultPolicy()
	setInt := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	setInt(&p.MaxRefinePerAttempt, d.MaxRefinePerAttempt)
	setInt(&p.MaxAttempts, d.MaxAttempts)
	setInt(&p.MaxSimplify, d.MaxSimplify)
	setInt(&p.MaxTransient, d.MaxTransient)
	setInt(&p.Patience, d.Patience)
	setInt(&p.StuckRepeats, d.StuckRepeats)
	setInt(&p.MaxReviewRounds, d.MaxReviewRounds)
	setInt(&p.FeedbackMaxLength, d.FeedbackMaxLength)
	setInt(&p.MaxIterations, d.MaxIterations)
	if p.MaxExpand < 0 {
		p.MaxExpand = 0
	}
	if p.AcceptScore <= 0 {
		p.AcceptScore = d.AcceptScore
	}
	if p.Epsilon <= 0 {
		p.Epsilon = d.Epsilon
	}
	if p.EscalateOn == nil {
		p.EscalateOn = d.EscalateOn
	}
	return p
}

// Decide implements [state.Decider]: detectors turn the evidence and the history
// into triggers, the fixed priority order of [Engine.choose] turns them into an
// action and a strategy, and the rest of the decision (next iteration, rollback,
// best checkpoint, feedback, escalation report, decision document) follows.
func (e *Engine) Decide(in state.DecideInput) state.Decision {
	if in.State == nil {
		in.State = &state.State{}
	}
	if in.Spec == nil {
		in.Spec = &state.Spec{}
	}
	// Failures that were there before the run, outside the task, are not the
	// run's: every detector sees the iteration without them.
	var baseline []evidence.GateResult
	if in.State.BaselineDone {
		baseline = in.State.Baseline
	}
	var aside []string
	in.Evidence, aside = SetAside(in.Spec.Told, baseline, in.Evidence)
	ev := in.Evidence
	failing := Failing(ev)
	q := Quality(ev)
	if !in.Spec.HasGates && !in.Spec.HasReviewer && !ev.Records.Escalates() {
		// An agent that moved the branch escalates in a plain loop too.
		return plain(in, q)
	}
	f := e.facts(in, failing, q)
	f.aside = aside
	if f.base != nil && len(aside) > 0 {
		f.base.Failing = slices.DeleteFunc(slices.Clone(f.base.Failing), func(k string) bool { return slices.Contains(aside, k) })
		f.base.FP = fingerprint(f.base.Failing)
	}
	ts := detect(f)
	f.cur.Triggers = triggerIDs(ts)
	f.all[len(f.all)-1] = f.cur
	f.seq[len(f.seq)-1] = f.cur
	c := e.choose(f, ts)
	v := judge(f)
	// The threshold stops a run that would go on. A run the engine itself stops
	// with its evidence (stuck, oscillating, regressing again after a fresh
	// attempt) escalates with that evidence, even when the same iteration
	// reaches the threshold: the evidence is what the person needs. A stop on
	// the threshold hands over too when the agent changed code: the pattern
	// and one question, not a bare exit code; an agent that changed nothing
	// (it failed to run, say) leaves nothing to hand over, and aborts.
	if why, ok := thresholdReached(in, !v.failed, v.label); ok && c.action.Continues() {
		c = choice{action: state.ActionAbort, rule: RuleThreshold, reason: why}
		if changedCode(f) {
			c.action, c.class = state.ActionEscalate, decision.ClassThreshold
			if p := thresholdPattern(f, ts); p != "" && !strings.Contains(why, p) {
				c.reason = p + "; " + why
			}
		}
	}
	return e.build(f, ts, c, v)
}

// changedCode reports whether an iteration of the segment changed the code.
func changedCode(f *facts) bool {
	for _, p := range f.all {
		if p.Lines > 0 || p.DiffHash != "" && !p.DiffEmpty {
			return true
		}
	}
	return false
}

// plain is the loop without outside evidence: go on, and count the
// iteration a success when the agent exited 0. The agent's own completion
// marker ends the run, counted only when the agent printed it (never because
// the prompt had it); the failure threshold aborts it.
func plain(in state.DecideInput, q float64) state.Decision {
	a := in.Evidence.Agent
	d := state.Decision{Action: state.ActionContinue, Succeeded: !a.Failed(), Quality: q, Next: in.State.Next}
	// A plain iteration that went well needs no words: "Iteration 2/5 completed
	// in 45.2s" says it all.
	if a.Failed() {
		d.Message = "agent " + a.Summary()
	}
	switch why, over := thresholdReached(in, d.Succeeded, d.Message); {
	case a.Completed && !a.Failed():
		d.Action, d.Message = state.ActionComplete, "the agent printed the completion marker"
	case over:
		d.Action, d.Message = state.ActionAbort, why
	}
	return d
}

func (e *Engine) facts(in state.DecideInput, failing []string, q float64) *facts {
	ev := in.Evidence
	var past []point
	seg := segment(in.State, ev.N)
	for _, r := range seg {
		past = append(past, fromRecord(r))
	}
	weak := weakening(ev, asks(in))
	if len(weak) == 0 && !e.p.AllowTestEdits && in.State != nil && in.State.BaselineDone {
		if t := editedToPass(ev, in.State.Baseline, asks(in)); len(t) > 0 {
			weak = append(weak, "failing at the start, passing only after their test was edited: "+strings.Join(t, ", "))
		}
	}
	if len(weak) > 0 {
		// Tests the agent weakened prove nothing: such an iteration is never the
		// best checkpoint, never accepted, never progress.
		q = 0
	}
	cur := fromEvidence(ev, failing, q)
	cur.Succeeded = green(ev, in.Spec, e.p) && len(weak) == 0
	all := append(append([]point(nil), past...), cur)
	var seq []point
	for _, p := range past {
		if p.Strategy != "retry" { // a retried iteration was spoiled by the infrastructure
			seq = append(seq, p)
		}
	}
	seq = append(seq, cur)
	f := &facts{
		p: e.p, in: in, ev: ev, past: past, cur: cur, all: all, seq: seq, failing: failing, acked: acknowledged(in.State, ev.N),
		gateFeedback: gateFeedback(e.p, ev.Gates, in.State), weakened: strings.Join(weak, "; "),
	}
	if st := in.State; st.BaselineDone && len(seg) == len(st.History) {
		// The run's first segment starts from the baseline: the failures the
		// agent was given are the first point of its trend.
		bq := Quality(evidence.Iteration{Gates: st.Baseline})
		keys := Failing(evidence.Iteration{Gates: st.Baseline})
		f.base = &point{N: 0, Failing: keys, FP: fingerprint(keys), Quality: bq}
	} else {
		f.start = segmentStart(st, len(seg))
	}
	return f
}

// green reports whether the iteration meets the goal: the agent finished, every
// required gate passed, and the reviewer (when there is one) approved with at
// least AcceptScore (a score of 0 means the reviewer gave none).
func green(ev evidence.Iteration, spec *state.Spec, p Policy) bool {
	if ev.Agent.Failed() || ev.Agent.RateLimited || ev.Agent.Transient || !ev.RequiredGatesPassed() {
		return false
	}
	for _, g := range ev.Gates {
		if g.Required && g.Infra {
			return false
		}
	}
	if spec.HasReviewer {
		r := ev.Review
		if r == nil || !r.Approved() || (r.Score > 0 && r.Score < p.AcceptScore) {
			return false
		}
	}
	return true
}

// detect runs every detector, in a fixed order.
func detect(f *facts) []decision.Trigger {
	var ts []decision.Trigger
	for _, d := range []func(*facts) []decision.Trigger{
		detectSpec, detectTransient, detectSecurity, detectArchitecture, detectConflict, detectScope,
		detectTampering, detectBudget, detectMovedBranch,
	} {
		ts = append(ts, d(f)...)
	}
	if transientOnly(f.ev) || f.weakened != "" {
		// An iteration the infrastructure spoiled, or one that weakened the
		// tests, says nothing about progress.
		return ts
	}
	for _, d := range []func(*facts) []decision.Trigger{detectStuck, detectOscillation, detectChurn, detectPlateau, detectRegression} {
		ts = append(ts, d(f)...)
	}
	return ts
}

// transientOnly reports whether the iteration was spoiled by the infrastructure:
// a transient or rate-limited agent, or a required gate that could not run.
func transientOnly(ev evidence.Iteration) bool {
	if ev.Agent.Transient || ev.Agent.RateLimited {
		return true
	}
	for _, g := range ev.Gates {
		if g.Required && g.Infra {
			return true
		}
	}
	return false
}

func triggerIDs(ts []decision.Trigger) []string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	return ids
}

func find(ts []decision.Trigger, id string) (decision.Trigger, bool) {
	for _, t := range ts {
		if t.ID == id {
			return t, true
		}
	}
	return decision.Trigger{}, false
}

func has(ts []decision.Trigger, id string, minSev float64) bool {
	t, ok := find(ts, id)
	return ok && t.Severity >= minSev
}
