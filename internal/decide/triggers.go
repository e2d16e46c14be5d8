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

// facts is what every detector reads: the policy, the input, the past of this
// segment and the present iteration.
type facts struct {
	p       Policy
	in      state.DecideInput
	ev      evidence.Iteration
	past    []point
	cur     point
	all     []point // past and present
	seq     []point // past and present without the iterations the infrastructure spoiled
	acked   map[string]bool
	failing []string
	// gateFeedback is the rendered gate results with what changed since the
	// previous iteration: computed once, used by the feedback and the report.
	gateFeedback string
	// weakened says how the present iteration weakened the tests ("" when it
	// did not): skips added, assertions removed, test files deleted.
	weakened string
	// base is the baseline as the first point of the run's first segment (nil
	// without a baseline, and after a human's guidance started a new segment).
	base *point
	// start is the iteration a segment after a guidance started from (nil in
	// the first): what the segment's first iteration is measured against.
	start *point
	// aside are the failures outside the task ([outsideTask]): reported,
	// not the run's.
	aside []string
}

// checkpoints reports whether the engine keeps checkpoints of the work tree
// to go back to ([state.Spec.NoCheckpoints]).
func (f *facts) checkpoints() bool { return f.in.Spec == nil || !f.in.Spec.NoCheckpoints }

// trend is the iterations the trend detectors compare, the baseline first when
// the segment starts from it: an agent whose first iteration leaves the
// baseline's failures as they were has already failed to fix them once.
func (f *facts) trend() []point {
	if f.base == nil {
		return f.seq
	}
	return append([]point{*f.base}, f.seq...)
}

func trig(id string, sev float64, fixable bool, format string, args ...any) decision.Trigger {
	return decision.Trigger{ID: id, Severity: sev, Fixable: fixable, Evidence: fmt.Sprintf(format, args...)}
}

// detectSpec maps agentloop's evidence onto the specification's eight triggers
// (the mapping is documented in doc.go).
func detectSpec(f *facts) []decision.Trigger {
	var out []decision.Trigger
	ev := f.ev
	var build, tests, other []string
	for _, g := range ev.Gates {
		if g.Infra || g.Passed {
			continue
		}
		// Failures the baseline already had are still the agent's to fix, and
		// classified as what they are: a failing test is not a broken build.
		for _, fd := range slices.Concat(g.Findings, g.Preexisting) {
			if fd.Flaky {
				continue
			}
			switch fd.Kind {
			case evidence.KindTest:
				tests = append(tests, gate.Key(fd))
			case evidence.KindBuild, evidence.KindCrash, evidence.KindTimeout, evidence.KindType, evidence.KindLint:
				if g.Required {
					build = append(build, gate.Key(fd))
				} else {
					other = append(other, g.Name)
				}
			}
		}
		if len(g.Findings) == 0 && len(g.Preexisting) == 0 {
			if g.Required {
				build = append(build, "gate:"+g.Name)
			} else {
				other = append(other, g.Name)
			}
		}
	}
	if len(build) > 0 {
		out = append(out, trig(decision.TriggerValidationFailure, 0.8, true, "%d build, crash, type or lint failures in required gates: %s", len(build), first(build)))
	}
	if len(tests) > 0 {
		out = append(out, trig(decision.TriggerRequirementUnmet, 0.7, true, "%s: %s", plural(len(tests), "failing test"), first(tests)))
	}
	a := ev.Agent
	if a.Failed() && !a.Transient && !a.RateLimited {
		out = append(out, trig(decision.TriggerIncompleteOutput, 0.6, true, "agent did not finish: %s", agentReason(a)))
	}
	if a.Completed && (len(build)+len(tests) > 0) {
		out = append(out, trig(decision.TriggerHallucination, 0.6, true, "the agent claimed completion but %d required checks fail", len(build)+len(tests)))
	} else if syms := namedSymbols(ev); len(syms) > 0 {
		out = append(out, trig(decision.TriggerHallucination, 0.5, true, "errors name what the agent did not see: %s", strings.Join(syms, ", ")))
	}
	if r := ev.Review; r != nil {
		switch {
		case r.Verdict == evidence.VerdictUnknown || r.Verdict == "":
			out = append(out, trig(decision.TriggerLowConfidence, 0.3, true, "the reviewer's answer could not be read"))
		case r.Confidence > 0 && r.Confidence < 0.5:
			out = append(out, trig(decision.TriggerLowConfidence, 0.3, true, "reviewer confidence %.2f", r.Confidence))
		}
		if r.Verdict == evidence.VerdictReject {
			out = append(out, trig(decision.TriggerUserRejection, 0.8, true, "the reviewer rejected the change: %s", orText(r.Summary, "no summary")))
		}
		if r.Verdict == evidence.VerdictRequestChanges || r.Verdict == evidence.VerdictReject {
			out = append(out, trig(decision.TriggerExplicitFeedback, reviewSeverity(r), true, "%s", plural(len(r.Findings), "reviewer finding")))
		}
		if r.Approved() && r.Score > 0 && r.Score < f.p.AcceptScore {
			out = append(out, trig(decision.TriggerQualityThreshold, 0.3, true, "reviewer score %.1f below %.1f", r.Score, f.p.AcceptScore))
		}
	}
	if len(other) > 0 && len(build)+len(tests) == 0 {
		slices.Sort(other)
		out = append(out, trig(decision.TriggerQualityThreshold, 0.2, true, "optional gates failing: %s", strings.Join(slices.Compact(other), ", ")))
	}
	return out
}

func reviewSeverity(r *evidence.Review) float64 {
	sev := 0.4
	for _, f := range r.Findings {
		switch f.Severity {
		case "blocker":
			sev = max(sev, 0.9)
		case "major":
			sev = max(sev, 0.7)
		}
	}
	return sev
}

func agentReason(a evidence.AgentResult) string {
	switch {
	case a.Reason != "":
		return a.Reason
	case a.TimedOut:
		return "timed out"
	case a.IdleTimedOut:
		return "idle timeout"
	case a.StartFailed:
		return "could not start"
	case a.Signal != "":
		return "killed by " + a.Signal
	}
	return fmt.Sprintf("exit %d", a.ExitCode)
}

func first(keys []string) string {
	s := gate.Label(keys[0])
	if len(keys) > 1 {
		s += fmt.Sprintf(" (+%d more)", len(keys)-1)
	}
	return s
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
