package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Gate is a configured quality gate, as the judge needs it.
type Gate struct {
	Name, Command    string
	Required         bool
	TolerateBaseline bool   // pass when no failure beyond the baseline remains
	Format           string // parser name or "auto"
}

// Judge decides a gate from its exit code, its parsed report and its raw tail
// together, since each alone loses failures:
//   - a non-zero exit with nothing parsed still fails, with one [evidence.KindGate] finding
//     keyed on the normalized tail;
//   - exit 0 with failures parsed (go vet -json) fails;
//   - flaky tests (failed, then passed on a rerun) and warnings do not count, except
//     (the flaky ones are kept apart in Flaky)
//     that warnings are what failed when the exit is non-zero and nothing else is;
//   - exit 0 with output of which nothing could be read in its structured format
//     is never green: the gate is [Infra] (it could not be judged), naming the
//     parse problem; other parse problems ride along in ParseErrors;
//   - with a baseline, failures it already had go to Preexisting and the rest, the
//     agent's, to Findings; baseline keys now gone go to Fixed. A gate with
//     TolerateBaseline passes when no new failure remains.
//
// Every failure gets its Key; Fingerprint hashes all current failures.
func Judge(g Gate, exitCode int, rep Report, baseline *evidence.GateResult) evidence.GateResult {
	res := evidence.GateResult{
		Name: g.Name, Command: g.Command, Required: g.Required, ExitCode: exitCode,
		Format: rep.Format, Tests: rep.Tests, Tail: rep.Tail,
		ParseErrors: rep.Problems, Dropped: rep.Dropped,
	}
	failing := counted(rep.Findings, exitCode)
	for _, f := range rep.Findings {
		if f.Flaky {
			res.Flaky = append(res.Flaky, f)
		}
	}
	assignKeys(res.Flaky)
	if exitCode == 0 && len(failing) == 0 && rep.Unreadable {
		inf := Infra(g, fmt.Sprintf("exit 0, but %s; check the gate's format and command", strings.Join(rep.Problems, "; ")))
		inf.ExitCode, inf.Format, inf.Tail, inf.ParseErrors, inf.Tests = 0, rep.Format, rep.Tail, rep.Problems, rep.Tests
		return inf
	}
	if exitCode != 0 && len(failing) == 0 {
		failing = []evidence.Finding{gateFinding(g.Name, exitCode, rep.Tail)}
	}
	assignKeys(failing)
	keys := make([]string, len(failing))
	for i, f := range failing {
		keys[i] = f.Key
	}
	res.Fingerprint = Fingerprint(g.Name, keys)
	base := map[string]bool{}
	if baseline != nil {
		for _, fs := range [][]evidence.Finding{baseline.Findings, baseline.Preexisting} {
			for _, f := range fs {
				base[Key(f)] = true
			}
		}
	}
	cur := map[string]bool{}
	for _, f := range failing {
		cur[f.Key] = true
		if base[f.Key] {
			res.Preexisting = append(res.Preexisting, f)
		} else {
			res.Findings = append(res.Findings, f)
		}
	}
	for k := range base {
		if !cur[k] {
			res.Fixed = append(res.Fixed, k)
		}
	}
	sort.Strings(res.Fixed)
	if g.TolerateBaseline {
		res.Passed = len(res.Findings) == 0 && (exitCode == 0 || len(res.Preexisting) > 0)
	} else {
		res.Passed = exitCode == 0 && len(failing) == 0
	}
	return res
}

// counted returns the findings that make a gate fail.
func counted(fs []evidence.Finding, exitCode int) []evidence.Finding {
	var errs, warns []evidence.Finding
	for _, f := range fs {
		switch {
		case f.Flaky:
		case f.Severity == evidence.SeverityWarning || f.Severity == evidence.SeverityInfo:
			warns = append(warns, f)
		default:
			errs = append(errs, f)
		}
	}
	if len(errs) == 0 && exitCode != 0 {
		return warns
	}
	return errs
}

// gateFinding stands for a failure that nothing parsed explains.
func gateFinding(name string, exitCode int, tail string) evidence.Finding {
	var norm []string
	for _, l := range strings.Split(tail, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			norm = append(norm, Normalize(l))
		}
	}
	if len(norm) > 20 {
		norm = norm[len(norm)-20:]
	}
	sum := sha256.Sum256([]byte(strings.Join(norm, "\n")))
	msg := fmt.Sprintf("exit %d with no parsable failure", exitCode)
	if last := lastLines(tail, 8); last != "" {
		msg += "; last output: " + last
	}
	return evidence.Finding{
		Kind: evidence.KindGate, Tool: name, ID: name, Message: cleanMessage(msg), Severity: evidence.SeverityError,
		Key: fmt.Sprintf("GATE|%s|exit=%d|%s", name, exitCode, hex.EncodeToString(sum[:])[:16]),
	}
}

// TimedOut judges a gate that ran out of its time limit after: it fails like
// any gate, with what its parser read of its output (rep) and one finding
// more that says it timed out, with its last lines (rep.Tail), keyed on the
// gate and its limit alone, so that the same hang in two iterations is the
// same failure. A
// deadlocked test suite is most often the code's doing, so it is evidence
// against it, not the environment's problem.
func TimedOut(g Gate, after time.Duration, rep Report, baseline *evidence.GateResult) evidence.GateResult {
	msg := fmt.Sprintf("gate %s timed out after %s", g.Name, after)
	if last := lastLines(rep.Tail, 8); last != "" {
		msg += "; its last lines: " + last
	} else {
		msg += " with no output"
	}
	rep.Findings = append(slices.Clone(rep.Findings), evidence.Finding{
		Kind: evidence.KindGate, Tool: g.Name, ID: g.Name, Message: cleanMessage(msg), Severity: evidence.SeverityError,
		Key: fmt.Sprintf("GATE|%s|timeout=%s", g.Name, after),
	})
	res := Judge(g, -1, rep, baseline)
	res.TimedOut = after
	// A hang hides whatever the gate had still to run: it never passes, and
	// its finding is never the baseline's, even when the baseline hung too
	// (a gate that tolerates the baseline would pass on nothing run).
	res.Passed = false
	if i := slices.IndexFunc(res.Preexisting, func(f evidence.Finding) bool {
		return f.Kind == evidence.KindGate && strings.HasPrefix(f.Key, "GATE|"+g.Name+"|timeout=")
	}); i >= 0 {
		res.Findings = append(res.Findings, res.Preexisting[i])
		res.Preexisting = slices.Delete(res.Preexisting, i, i+1)
	}
	return res
}

// Infra is the result of a gate that could not start or be judged: it fails,
// but it is not a finding against the agent's code.
func Infra(g Gate, reason string) evidence.GateResult {
	return evidence.GateResult{
		Name: g.Name, Command: g.Command, Required: g.Required, ExitCode: -1,
		Infra: true, InfraReason: reason, Format: g.Format,
	}
}

// NotStarted is the result of a gate whose command could not start: its program
// is not found or not executable, or a shell running it exited 126 or 127 (the
// shell's "cannot execute" and "not found"). It is [Infra] and NotStarted.
func NotStarted(g Gate, reason string) evidence.GateResult {
	r := Infra(g, "cannot start: "+reason)
	r.NotStarted = true
	return r
}

// ShellCannotStart reports whether an exit code is a shell's way of saying that
// the command could not start: 127 (not found) or 126 (found, not executable).
func ShellCannotStart(exitCode int) bool { return exitCode == 126 || exitCode == 127 }

// Rerun judges a gate that was run a second time because its first run failed:
// the second run's result stands, and the first run's failures that did not
// fail again are flaky (failed, then passed), kept in Flaky, not counted. A
// gate that passes on the second run is green.
func Rerun(first, second evidence.GateResult) evidence.GateResult {
	out := second
	again := map[string]bool{}
	for _, fs := range [][]evidence.Finding{second.Findings, second.Preexisting} {
		for _, f := range fs {
			again[Key(f)] = true
		}
	}
	seen := map[string]bool{}
	for _, f := range second.Flaky {
		seen[Key(f)] = true
	}
	for _, fs := range [][]evidence.Finding{first.Findings, first.Preexisting} {
		for _, f := range fs {
			if k := Key(f); !again[k] && !seen[k] {
				seen[k] = true
				f.Flaky = true
				out.Flaky = append(out.Flaky, f)
			}
		}
	}
	return out
}

// ShouldRerun reports whether a gate's failure is worth running the gate once
// more to tell a flaky test from a real failure: a required gate that failed
// with failures beyond the baseline (the baseline's own, repeated, are known
// to be real) and none of them a build, type or lint failure (those do not
// flake). A gate that could not run, or ran out of its time, is not rerun
// here (another hang of as long says nothing new).
func ShouldRerun(r evidence.GateResult) bool {
	if !r.Required || r.Passed || r.Infra || r.TimedOut > 0 || len(r.Findings) == 0 {
		return false
	}
	for _, f := range r.Findings {
		switch f.Kind {
		case evidence.KindBuild, evidence.KindType, evidence.KindLint:
			return false
		}
	}
	return true
}

// FlakyNote says which failures of the results were flaky, in the words the
// feedback, the iteration line and the report use: "flaky: failed then passed:
// calc.TestTime (+1 more)"; "" when none was.
func FlakyNote(results []evidence.GateResult) string {
	var keys []string
	for _, r := range results {
		for _, f := range r.Flaky {
			keys = append(keys, Key(f))
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	s := "flaky: failed then passed: " + Label(keys[0])
	if len(keys) > 1 {
		s += fmt.Sprintf(" (+%d more)", len(keys)-1)
	}
	return s
}
