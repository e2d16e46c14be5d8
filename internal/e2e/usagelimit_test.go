package e2e

import (
	"strings"
	"testing"
	"time"
)

// usageLimitScenario: the account is at its usage limit for resetIn seconds
// from the first request; then the edit turn is served.
const usageLimitScenario = `
turns:
  - fault: {usage_limit: 20}
    text: "The test expects a sum; I will fix Add."
    shell: "` + fixCmd + `"
    usage: {input: 1200, output: 40}
  - text: "Fixed calc.go."
    usage: {input: 1500, output: 12}
`

// subscriber points Claude Code at the double as a Claude subscription (an
// OAuth token instead of an API key): only then does it read the usage-limit
// headers and print "You've hit your session limit · resets …".
func subscriber(env map[string]string) {
	delete(env, "ANTHROPIC_API_KEY")
	env["CLAUDE_CODE_OAUTH_TOKEN"] = "sk-ant-oat01-double"
}

// An account at its usage limit, the reset 20 s ahead: the real CLI prints its
// real message, the loop pauses until the reset (saying until when), then the
// same iteration goes on: one iteration, no failure, and the spend is what the
// double served after the reset (the limit's replies cost nothing).
func TestUsageLimitPauses(t *testing.T) {
	need(t)
	t.Parallel()
	for _, c := range []struct {
		name, words string
		setup       func(map[string]string)
	}{
		{"claude", "You've hit your session limit · resets", subscriber},
		{"codex", "hit your usage limit", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := &agent{cli: lookupCLI(c.name), name: c.name, srv: serve(t, usageLimitScenario), setup: c.setup, result: "usage-limit"}
			l := &loop{dir: repo(t), main: a}
			o := l.run(t)
			if o.code != 0 || o.report.Summary.Status != "succeeded" || o.report.Summary.Iterations != 1 || !fixed(t, l.dir) {
				t.Fatalf("want a success in one iteration; %s", o)
			}
			out := o.stdout + o.stderr
			for _, want := range []string{c.words, "is at its usage limit", "paused until"} {
				if !strings.Contains(out, want) {
					t.Errorf("the output does not say %q; %s", want, o)
				}
			}
			if strings.Contains(out, "consecutive failure") {
				t.Errorf("a usage limit was counted as a failure; %s", o)
			}
			reset, after := windowOf(t, a.srv, 20*time.Second)
			if after.Before(reset) {
				t.Errorf("the agent ran again at %s, before the reset at %s", after.Format(time.TimeOnly), reset.Format(time.TimeOnly))
			}
			checkUsage(t, o, a)
		})
	}
}

// With a fallback: codex at its usage limit moves to the fallback (claude, as
// an API-key user) at once; the fallback's iteration makes no progress, so
// the loop waits for codex's reset (it is minutes away, not hours) instead of
// judging the stand-in stuck, and the next iteration runs on codex, which
// fixes the bug. Codex names its reset to the minute ("try again at 1:06
// PM"): agentloop waits to that minute's end, whatever second the test
// starts at, so the double's 5 s window has ended by then.
func TestUsageLimitFallsBackAndReturns(t *testing.T) {
	need(t)
	t.Parallel()
	main := &agent{cli: lookupCLI("codex"), name: "codex", srv: serve(t, `
turns:
  - fault: {usage_limit: 5}
    text: "The test expects a sum; I will fix Add."
    shell: "`+fixCmd+`"
  - text: "Fixed calc.go."
`), result: "usage-limit-short"}
	fb := &agent{cli: lookupCLI("claude"), name: "claude", srv: serve(t, "turns: [{text: \"I looked; nothing changed.\"}]\n"), result: "no-change"}
	l := &loop{dir: repo(t), main: main, fallback: []*agent{fb}, limits: map[string]any{"max_iterations": 5, "failure_threshold": 5}}
	o := l.run(t)
	if o.code != 0 || o.report.Summary.Status != "succeeded" || !fixed(t, l.dir) {
		t.Fatalf("want a success by codex after its reset; %s", o)
	}
	if modelRequests(fb.srv) == 0 || o.report.Summary.Iterations < 2 {
		t.Errorf("want the fallback's iteration first (fallback requests %d, iterations %d); %s", modelRequests(fb.srv), o.report.Summary.Iterations, o)
	}
	// The wait itself is the ledger's (every loop on codex's account waits
	// for its reset) or, with the ledger off, the iteration's own.
	for _, want := range []string{"switching to the fallback agent claude", "made no progress while codex is at its usage limit; wait for its reset"} {
		if !strings.Contains(o.stdout+o.stderr, want) {
			t.Errorf("the output does not say %q; %s", want, o)
		}
	}
	if o.report.Summary.Iterations != 2 {
		t.Errorf("want 2 iterations, the fallback's and codex's after its reset; %s", o)
	}
	reset, after := windowOf(t, main.srv, 5*time.Second)
	if after.Before(reset) {
		t.Errorf("codex ran again at %s, before its reset at %s", after.Format(time.TimeOnly), reset.Format(time.TimeOnly))
	}
}

// windowOf is when the double's usage limit was first met plus limit (its
// reset), and when a model request was first served after it.
func windowOf(t *testing.T, s server, limit time.Duration) (reset, after time.Time) {
	t.Helper()
	met := false
	for _, r := range s.Records() {
		at, err := time.Parse(time.RFC3339Nano, r.Time)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Fault == "usage_limit" && !met:
			met, reset = true, at
		case r.Fault == "" && !r.Side && r.API != "other" && met && after.IsZero():
			after = at
		}
	}
	if reset.IsZero() || after.IsZero() {
		t.Fatalf("the double served no usage limit, or nothing after it: %+v", s.Records())
	}
	// The double took the time of the first request a little before it
	// recorded it.
	return reset.Add(limit - time.Second), after
}
