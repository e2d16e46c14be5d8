package agent

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"time"
)

// ClassKind is how a finished agent run is judged.
type ClassKind string

// Class kinds.
const (
	ClassOK          ClassKind = "ok"           // the run finished normally
	ClassFailed      ClassKind = "failed"       // the agent failed after doing work: counts as a failed iteration
	ClassRateLimited ClassKind = "rate_limited" // rate or usage limit, or provider overload: wait, don't count
	ClassTransient   ClassKind = "transient"    // crash before output, kill, network error: retry, don't count
)

// Class is the classification of one agent run.
type Class struct {
	Kind    ClassKind
	ResetAt time.Time // when a rate limit lifts, if known
	Reason  string    // one line, for people
}

// Classify judges a finished run from its exit code, the parser's outcome, the
// tail of its stderr and how many bytes it printed. The parser's structured
// signals come first; stdout text is matched only by the parser (narrow
// patterns); stderr gets the broader patterns, and only when the run failed.
// Killed-by-us cases (timeout, budget) are the caller's to judge before this.
func Classify(p Preset, exitCode int, out Outcome, stderrTail []byte, outputBytes int64) Class {
	stderrLine := lastLine(stderrTail)
	switch {
	case out.RateLimited:
		return Class{Kind: ClassRateLimited, ResetAt: out.ResetAt, Reason: orDefault(out.Reason, "rate limited")}
	case out.Overloaded:
		return Class{Kind: ClassRateLimited, Reason: orDefault(out.Reason, "provider overloaded")}
	}
	ok := exitCode == 0 && !out.IsError && (out.Terminal || !HasTerminal(p.Format))
	if ok {
		return Class{Kind: ClassOK}
	}
	if m := matchAny(stderrTail, stderrRateLimit, p.RateLimitPatterns); m != "" || matchExtra(out.Reason, p.RateLimitPatterns) {
		return Class{Kind: ClassRateLimited, Reason: orDefault(out.Reason, "rate limited: "+orDefault(m, stderrLine))}
	}
	if overloadPattern.Match(stderrTail) {
		return Class{Kind: ClassRateLimited, Reason: orDefault(out.Reason, "provider overloaded: "+stderrLine)}
	}
	switch {
	case out.Transient:
		return Class{Kind: ClassTransient, Reason: orDefault(out.Reason, "network or server error")}
	case exitCode < 0 || exitCode == 128+9 || exitCode == 128+15:
		return Class{Kind: ClassTransient, Reason: fmt.Sprintf("killed by a signal (exit %d)", exitCode)}
	case transientPattern.Match(stderrTail):
		return Class{Kind: ClassTransient, Reason: "network or server error: " + stderrLine}
	case outputBytes == 0:
		return Class{Kind: ClassTransient, Reason: fmt.Sprintf("exited %d before any output", exitCode)}
	}
	reason := out.Reason
	switch {
	case reason != "":
	case exitCode == 0 && !out.Terminal:
		reason = "the output ended without its final record (crash, kill or wrong format)"
	case stderrLine != "":
		reason = fmt.Sprintf("exit %d: %s", exitCode, stderrLine)
	default:
		reason = fmt.Sprintf("exit %d", exitCode)
	}
	return Class{Kind: ClassFailed, Reason: reason}
}

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
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
