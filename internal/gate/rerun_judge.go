package gate

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// RerunSelected judges a gate whose failed tests plan selected were run
// again alone (second is that run, judged): a selected failure that did not
// fail again is flaky (failed, then passed), kept in Flaky and not counted;
// every other failure of the first run stands. The second run must show
// that it ran them: when it passed fewer tests than it would call flaky (a
// selector that matched nothing, a build that broke), or could not be read,
// nothing is called flaky and the note says so. A gate left with no failure
// of its own is green (with TolerateBaseline, also when the baseline's remain).
func RerunSelected(g Gate, first, second evidence.GateResult, plan RerunPlan) evidence.GateResult {
	out := first
	out.Flaky = append([]evidence.Finding(nil), first.Flaky...)
	out.RerunDuration = second.Duration
	out.RerunLog = second.LogPath
	again := map[string]bool{}
	for _, fs := range [][]evidence.Finding{second.Findings, second.Preexisting} {
		for _, f := range fs {
			again[Key(f)] = true
		}
	}
	selected := map[string]bool{}
	for _, f := range plan.Selected {
		selected[Key(f)] = true
	}
	var kept, flaky []evidence.Finding
	for _, f := range first.Findings {
		if k := Key(f); selected[k] && !again[k] {
			f.Flaky = true
			flaky = append(flaky, f)
		} else {
			kept = append(kept, f)
		}
	}
	what := fmt.Sprintf("ran %s again by name (%s)", countNoun(len(plan.Selected), "failed test"), plan.Command)
	switch {
	case second.Infra:
		out.RerunNote = what + ", but it could not run: " + second.InfraReason + "; the failures count"
		return out
	case len(flaky) > 0 && (second.Tests.Passed < len(flaky) || hasKind(second.Findings, evidence.KindBuild, evidence.KindGate)):
		out.RerunNote = fmt.Sprintf("%s, but it did not show them passing (%d passed); the failures count", what, second.Tests.Passed)
		return out
	}
	out.Findings = kept
	out.Flaky = append(out.Flaky, flaky...)
	out.Tests.Failed = max(0, out.Tests.Failed-len(flaky))
	out.Tests.Passed += len(flaky)
	out.RerunNote = fmt.Sprintf("%s: %d failed again, %d passed (flaky)", what, len(plan.Selected)-len(flaky), len(flaky))
	if len(plan.Left) > 0 {
		out.RerunNote += fmt.Sprintf("; %s not named by any selector count as they are", countNoun(len(plan.Left), "failure"))
	}
	var keys []string
	for _, fs := range [][]evidence.Finding{out.Findings, out.Preexisting} {
		for _, f := range fs {
			keys = append(keys, Key(f))
		}
	}
	out.Fingerprint = Fingerprint(first.Name, keys)
	if len(out.Findings) == 0 && (len(out.Preexisting) == 0 || g.TolerateBaseline) {
		out.Passed, out.ExitCode = true, second.ExitCode
	}
	return out
}

func hasKind(fs []evidence.Finding, kinds ...evidence.Kind) bool {
	for _, f := range fs {
		for _, k := range kinds {
			if f.Kind == k {
				return true
			}
		}
	}
	return false
}

// countNoun is "1 failed test", "3 failed tests".
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
