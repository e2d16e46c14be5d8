package agent

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Class is the classification of one agent run.
type Class struct {
	Outcome evidence.AgentOutcome
	ResetAt time.Time // when a rate limit lifts, if known
	Reason  string    // one line, for people: the CLI's own words where it gave any
	Fix     string    // what to set or install, for the outcomes that stop a run
}

// Classify judges a finished run from its exit code, the parser's outcome, the
// tail of its stderr and how many bytes it printed. The parser's structured
// signals come first, then the preset's table of known failures and the generic
// one (failures.go), then the rate-limit and network patterns; stdout text is
// matched only by the parser (narrow patterns); stderr gets the broader
// patterns, and only when the run failed. Killed-by-us cases (timeout, budget)
// are the caller's to judge before this.
func Classify(p Preset, exitCode int, out Outcome, stderrTail []byte, outputBytes int64) Class {
	stderrLine := lastLine(stderrTail)
	switch {
	case out.RateLimited:
		return Class{Outcome: evidence.OutcomeRateLimited, ResetAt: out.ResetAt, Reason: cmp.Or(out.Reason, "rate limited")}
	case out.Overloaded:
		return Class{Outcome: evidence.OutcomeTransient, Reason: cmp.Or(out.Reason, "provider overloaded")}
	}
	ok := exitCode == 0 && !out.IsError && (out.Terminal || !HasTerminal(p.Format))
	if ok {
		return Class{Outcome: evidence.OutcomeSucceeded}
	}
	text := out.Reason
	if len(stderrTail) > 0 {
		text += "\n" + string(stderrTail)
	}
	workDone := out.Usage.TokensKnown && out.Usage.TotalTokens() > 0
	if out.Auth {
		return Class{Outcome: evidence.OutcomeAuth, Reason: cmp.Or(out.Reason, stderrLine), Fix: fixFor(p, evidence.OutcomeAuth)}
	}
	for _, f := range slices.Concat(p.Failures, genericFailures()) {
		if !f.matches(exitCode, text, workDone) {
			continue
		}
		reason := cmp.Or(errorLine(out.Reason, stderrTail), fmt.Sprintf("exit %d", exitCode))
		c := Class{Outcome: f.Outcome, Reason: reason, Fix: f.Fix}
		if f.Outcome == evidence.OutcomeRateLimited {
			c.ResetAt = out.ResetAt
		}
		return c
	}
	if m := matchAny(stderrTail, stderrRateLimit(), p.RateLimitPatterns); m != "" || matchExtra(out.Reason, p.RateLimitPatterns) {
		return Class{Outcome: evidence.OutcomeRateLimited, Reason: cmp.Or(out.Reason, "rate limited: "+cmp.Or(m, stderrLine))}
	}
	if overloadPattern().Match(stderrTail) {
		return Class{Outcome: evidence.OutcomeTransient, Reason: cmp.Or(out.Reason, "provider overloaded: "+stderrLine)}
	}
	switch {
	case out.Transient:
		return Class{Outcome: evidence.OutcomeTransient, Reason: cmp.Or(out.Reason, "network or server error")}
	case exitCode < 0 || exitCode == 128+9 || exitCode == 128+15:
		return Class{Outcome: evidence.OutcomeKilled, Reason: fmt.Sprintf("killed by a signal (exit %d)", exitCode)}
	case transientPattern().Match(stderrTail):
		return Class{Outcome: evidence.OutcomeTransient, Reason: matchingLine(stderrTail, transientPattern())}
	case outputBytes == 0:
		return Class{Outcome: evidence.OutcomeCrashed, Reason: fmt.Sprintf("exited %d before any output", exitCode)}
	case exitCode == 0 && !out.Terminal && !out.IsError:
		return Class{Outcome: evidence.OutcomeCrashed, Reason: cmp.Or(out.Reason, "the output ended without its final record (crash, kill or wrong format)")}
	}
	reason := out.Reason
	switch {
	case reason != "":
	case stderrLine != "":
		reason = fmt.Sprintf("exit %d: %s", exitCode, stderrLine)
	default:
		reason = fmt.Sprintf("exit %d", exitCode)
	}
	return Class{Outcome: evidence.OutcomeFailed, Reason: reason}
}

// fixFor is the preset's advice for an outcome, or the generic one.
func fixFor(p Preset, o evidence.AgentOutcome) string {
	for _, f := range slices.Concat(p.Failures, genericFailures()) {
		if f.Outcome == o && f.Fix != "" {
			return f.Fix
		}
	}
	return ""
}

// matchingLine is the last line of b that re matches, clipped.
func matchingLine(b []byte, re *regexp.Regexp) string {
	lines := bytes.Split(b, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if re.Match(lines[i]) {
			return clip(string(lines[i]), 200)
		}
	}
	return lastLine(b)
}

// errorLine is the CLI's own words on a failure: the error its result records
// reported, else the last lines of its stderr (at most three, joined).
func errorLine(reason string, stderrTail []byte) string {
	if reason != "" {
		return reason
	}
	lines := strings.Split(strings.TrimSpace(string(stderrTail)), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < 3; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append(keep, l)
		}
	}
	slices.Reverse(keep)
	return clip(strings.Join(keep, " | "), 300)
}

// lastLine is the last non-empty line of b, clipped.
func lastLine(b []byte) string {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return clip(string(b), 200)
}

// matchAny returns the first match of re or of any extra pattern in b.
func matchAny(b []byte, re *regexp.Regexp, extra []string) string {
	if m := re.Find(b); m != nil {
		return string(m)
	}
	for _, pat := range extra {
		if x, err := regexp.Compile(pat); err == nil {
			if m := x.Find(b); m != nil {
				return string(m)
			}
		}
	}
	return ""
}

func matchExtra(s string, extra []string) bool {
	for _, pat := range extra {
		if x, err := regexp.Compile(pat); err == nil && x.MatchString(s) {
			return true
		}
	}
	return false
}

// Backoff is the wait before retry number attempt (0-based): base doubled per
// attempt, capped at max, with "equal jitter" — half fixed, half scaled by
// jitter, a random number in [0, 1) the caller passes in (so this stays pure).
func Backoff(attempt int, base, max time.Duration, jitter float64) time.Duration {
	if attempt < 0 || base <= 0 {
		return 0
	}
	if max <= 0 {
		max = time.Duration(math.MaxInt64 / 4)
	}
	d := base
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	jitter = min(jitter, 1)
	jitter = max0(jitter)
	return d/2 + time.Duration(float64(d/2)*jitter)
}

func max0(f float64) float64 {
	if f < 0 || f != f {
		return 0
	}
	return f
}
