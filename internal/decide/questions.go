package decide

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/gate"
)

// timedOut is the question when the agent of the iteration that escalates ran
// out of time: whether it needs more time or a smaller step, not what it
// misses about a failure it may never have reached.
func timedOut(f *facts, opts []decision.Option) (string, []decision.Option, string) {
	q := fmt.Sprintf("In iteration %d the agent %s: does it need more time for each iteration, or a smaller step?", f.ev.N, f.ev.Agent.Summary())
	rec := "Read the end of the agent's log: if it was still working, give it more time; if it was stuck, resume with a smaller first step as guidance."
	if t := timeoutInForce(f); t > 0 && f.ev.Agent.TimedOut {
		more := decision.Option{Label: "Give it more time", TradeOff: "resume with a longer iteration timeout and your answer; each iteration may cost more",
			Resume: fmt.Sprintf(`--iteration-timeout %s --guidance "..."`, shortDuration(expandTimeout(t)))}
		opts = append([]decision.Option{more}, opts...)
	}
	return q, opts, rec
}

// timeoutInForce is the iteration timeout the present iteration ran under: a
// raised one the decider asked for, or the run's own.
func timeoutInForce(f *facts) time.Duration {
	if t := f.in.State.Next.Timeout.Duration(); t > 0 {
		return t
	}
	return f.in.Spec.Limits.IterationTimeout
}

// shortDuration writes d as a flag value without zero units: 45m, 1h30m, 4.5s.
func shortDuration(d time.Duration) string {
	s := d.Round(100 * time.Millisecond).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// acceptable reports whether there is a checkpoint a person could accept as it
// is: an earlier best, or the present iteration when it ran the checks and did
// not weaken the tests.
func acceptable(f *facts) bool {
	if _, ok := bestPoint(f.past); ok {
		return true
	}
	return f.weakened == "" && f.cur.Quality > 0
}

// thresholdPattern is what the iterations the failure threshold stopped
// show: a failure none of them fixed before any other pattern (a regression
// of the last one says less), else the loop's pattern.
func thresholdPattern(f *facts, ts []decision.Trigger) string {
	if _, ok := firstOf(ts, decision.TriggerOscillation, decision.TriggerChurn, decision.TriggerStuck); !ok {
		if k := common(f.all); k != "" && len(f.all) > 1 {
			return fmt.Sprintf("%s failed in all %d iterations", gate.Label(k), len(f.all))
		}
	}
	return patternOf(f, ts)
}

// thresholdQuestion is the question when the failure threshold stopped a run
// that changed code: what the iterations showed, and what should change.
func thresholdQuestion(f *facts, ts []decision.Trigger, opts []decision.Option) (string, []decision.Option, string) {
	n := f.in.State.ConsecutiveFailures + 1
	what := thresholdPattern(f, ts)
	if what == "" {
		what = "no pattern the loop could name"
	}
	return fmt.Sprintf("%s in a row failed (%s): what should the agent do differently?", plural(n, "iteration"), what), opts,
		"Read the last iteration's feedback and diff; resume with guidance on the approach, or accept what the best checkpoint has."
}

// progress is a segment's steady progress: how many of the failures it
// started with are fixed, in how many iterations.
type progress struct {
	fixed, of, iterations int
}

func (p progress) String() string {
	pace := "one per iteration"
	switch {
	case p.fixed == p.iterations:
	case p.fixed%p.iterations == 0:
		pace = fmt.Sprintf("%d per iteration", p.fixed/p.iterations)
	default:
		pace = fmt.Sprintf("in %s", plural(p.iterations, "iteration"))
	}
	return fmt.Sprintf("%d of %d fixed, %s", p.fixed, p.of, pace)
}

// more is how many iterations the failures left would take at the pace so
// far.
func (p progress) more() int {
	left := p.of - p.fixed
	return max(1, (left*p.iterations+p.fixed-1)/p.fixed)
}

// steady reports whether the segment made steady progress to the present
// iteration: the number of failures, from where the segment started (the
// baseline, or the iteration a guidance started from), never rose and fell
// in the present iteration, with failures left.
func steady(f *facts) (progress, bool) {
	tr := f.trend()
	if f.base == nil && f.start != nil {
		tr = append([]point{*f.start}, f.seq...)
	}
	if len(tr) < 2 || len(f.cur.Failing) == 0 || f.weakened != "" {
		return progress{}, false
	}
	for i := 1; i < len(tr); i++ {
		if tr[i].Quality <= 0 || len(tr[i].Failing) > len(tr[i-1].Failing) {
			return progress{}, false
		}
	}
	if n := len(tr); len(tr[n-1].Failing) >= len(tr[n-2].Failing) {
		return progress{}, false
	}
	p := progress{of: len(tr[0].Failing), fixed: len(tr[0].Failing) - len(f.cur.Failing), iterations: len(tr) - 1}
	return p, p.fixed > 0
}

// goOn is the question when steady progress met the iteration limit: go on
// with a higher limit, the progress said, no failure named (the agent may
// never have come to the ones left).
func goOn(f *facts, p progress, opts []decision.Option) (string, []decision.Option, string) {
	limit := f.in.Spec.Limits.MaxIterations
	q := fmt.Sprintf("The run made steady progress (%s) when it reached its limit of %s: go on with a higher limit?", p, plural(limit, "iteration"))
	more := decision.Option{Label: "Go on with a higher limit",
		TradeOff: fmt.Sprintf("at the same pace, about %s for the %s left; spend goes on", plural(p.more(), "iteration"), plural(p.of-p.fixed, "failure")),
		Resume:   fmt.Sprintf(`--max-iterations %d --guidance "go on"`, p.more()+1)}
	return q, append([]decision.Option{more}, opts...), "Go on: every iteration fixed more, and nothing says the rest is different."
}
