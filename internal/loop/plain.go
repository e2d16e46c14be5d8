package loop

import "fmt"

// PlainDecider is the loop without a decision engine: an iteration succeeds when
// the agent exits 0 and every required gate passes. With gates, the run succeeds on
// the first such iteration; without them it goes on to its limits. An iteration
// with fewer failures than the one before counts as progress, not a failure.
type PlainDecider struct{}

// Decide implements [Decider].
func (PlainDecider) Decide(in DecideInput) Decision {
	ev := in.Evidence
	ok := !ev.Agent.Failed() && ev.RequiredGatesPassed()
	failing := 0
	for _, g := range ev.Gates {
		if g.Required {
			failing += len(g.Findings)
			if !g.Passed && len(g.Findings) == 0 {
				failing++
			}
		}
	}
	d := Decision{Action: ActionContinue, Succeeded: ok, Feedback: in.GateFeedback}
	switch {
	case ok && (in.Spec.HasGates || in.Spec.HasReviewer):
		d.Action, d.Message = ActionProceed, "all required gates passed"
	case ev.Agent.Failed():
		d.Message = "agent failed: " + orDefault(ev.Agent.Reason, fmt.Sprintf("exit %d", ev.Agent.ExitCode))
	case !ok:
		d.Message = fmt.Sprintf("%d gate failures", failing)
		if h := in.State.History; len(h) > 0 && failing < previousFailures(h[len(h)-1]) {
			d.Succeeded = true
			d.Message += " (fewer than before)"
		}
	}
	if ok {
		d.Quality = 1
	}
	return d
}

func previousFailures(r Record) int {
	n := 0
	for _, g := range r.Gates {
		if !g.Required {
			continue
		}
		n += g.Failures
		if !g.Passed && g.Failures == 0 {
			n++
		}
	}
	return n
}
