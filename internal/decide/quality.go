package decide

import (
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
)

// Quality weights, renormalised over the parts an iteration has:
// tests (with the acceptance share folded in), lint, reviewer.
const (
	weightTests  = 0.60
	weightLint   = 0.15
	weightReview = 0.25
	lintScale    = 20 // lint findings at which the lint part reaches 0
)

// QualityMeaning says in plain words what a quality score is, for the places
// that show one (the report's quality chart and column).
const QualityMeaning = "Quality runs from 0 to 1: the share of tests passing (weight 60%), " +
	"lint findings (15%: 20 or more findings count 0) and the reviewer's score (25%), " +
	"over the parts the run has; 0 when the build fails or a required gate cannot run."

// Quality scores an iteration from 0 to 1: 0 when the build
// fails, a required gate could not run, or the agent could not start; otherwise the
// weighted mean of the test pass fraction, the lint part (1 − findings/20) and the
// reviewer's score / 10, over the parts present. Without gates or reviewer it is 1
// for an agent that exited 0 and 0 otherwise.
func Quality(ev evidence.Iteration) float64 {
	if ev.Agent.StartFailed {
		return 0
	}
	var passed, failed, lint, gatesOK, gatesAll int
	hasLint := false
	for _, g := range ev.Gates {
		if g.Required && g.Infra {
			return 0
		}
		for _, f := range g.Findings {
			switch f.Kind {
			case evidence.KindBuild:
				if g.Required {
					return 0
				}
			case evidence.KindLint, evidence.KindType:
				lint++
			}
		}
		if isLintGate(g) {
			hasLint = true
			continue
		}
		gatesAll++
		if g.Passed {
			gatesOK++
		}
		passed += g.Tests.Passed
		failed += g.Tests.Failed
	}
	var sum, weight float64
	switch {
	case passed+failed > 0:
		frac := float64(passed) / float64(passed+failed)
		if gatesOK < gatesAll && frac == 1 {
			frac = 0.9 // a gate failed without failing a counted test (crash, tail)
		}
		sum, weight = weightTests*frac, weightTests
	case gatesAll > 0:
		sum, weight = weightTests*float64(gatesOK)/float64(gatesAll), weightTests
	}
	if hasLint {
		sum += weightLint * (1 - min(1, float64(lint)/lintScale))
		weight += weightLint
	}
	if r := ev.Review; r != nil && r.Verdict != evidence.VerdictUnknown {
		sum += weightReview * min(1, max(0, r.Score/10))
		weight += weightReview
	}
	if weight == 0 {
		if ev.Agent.Failed() {
			return 0
		}
		return 1
	}
	return round3(sum / weight)
}

func isLintGate(g evidence.GateResult) bool {
	if g.Tests.Passed+g.Tests.Failed+g.Tests.Skipped > 0 {
		return false
	}
	n := strings.ToLower(g.Name + " " + g.Format)
	for _, w := range []string{"lint", "vet", "eslint", "ruff", "clippy", "mypy", "tsc", "staticcheck"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	if len(g.Findings) == 0 {
		return false
	}
	for _, f := range g.Findings {
		if f.Kind != evidence.KindLint && f.Kind != evidence.KindType {
			return false
		}
	}
	return true
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

// Failing returns the sorted, unique failure keys ([gate.Key]) of an iteration's
// required and optional gates, the agent's new ones and those the baseline
// already had (infra failures excluded: they are not the agent's doing).
func Failing(ev evidence.Iteration) []string {
	var keys []string
	for _, g := range ev.Gates {
		if g.Infra {
			continue
		}
		for _, f := range g.Findings {
			keys = append(keys, gate.Key(f))
		}
		for _, f := range g.Preexisting {
			keys = append(keys, gate.Key(f))
		}
		if !g.Passed && len(g.Findings) == 0 && len(g.Preexisting) == 0 {
			keys = append(keys, "gate:"+g.Name)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// fingerprint is the fingerprint of an iteration's failures: [gate.Fingerprint]
// over the keys of every gate ("" when nothing fails).
func fingerprint(keys []string) string { return gate.Fingerprint("", keys) }
