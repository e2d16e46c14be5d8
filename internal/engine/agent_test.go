package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// scriptedAgent returns its results in order, recording which agent ran.
type scriptedAgent struct {
	results []evidence.AgentResult
	ran     []string
	started []time.Time // each run's loop.AgentRequest.Started
}

func (s *scriptedAgent) RunAgent(_ context.Context, r loop.AgentRequest) (evidence.AgentResult, error) {
	s.ran = append(s.ran, r.Agent)
	s.started = append(s.started, r.Started)
	res := s.results[min(len(s.ran), len(s.results))-1]
	return res, nil
}

type warnings struct {
	got   []string
	waits []time.Duration // the rate-limit waits the warnings carry
}

// Event keeps the warnings.
func (w *warnings) Event(ev state.Event) {
	if d, ok := ev.Data.(state.Warning); ok {
		w.got = append(w.got, d.Message)
		w.waits = append(w.waits, d.RateLimitWait.Duration())
	}
}
func (w *warnings) Phase(string) {}

func newLocal(agent loop.AgentRunner, p RateLimitPolicy, slept *[]time.Duration) *Local {
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	return &Local{
		Agent: agent, RateLimit: p, Screen: &warnings{},
		Now: func() time.Time { return now },
		Sleep: func(_ context.Context, d time.Duration) error {
			*slept = append(*slept, d)
			return nil
		},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func TestRunAgentWaitsOutRateLimits(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)
	agent := &scriptedAgent{results: []evidence.AgentResult{
		{Agent: "claude", ExitCode: 1, RateLimited: true, Reason: "429"},
		{Agent: "claude", ExitCode: 1, RateLimited: true, ResetAt: reset},
		{Agent: "claude", ExitCode: 0},
	}}
	var slept []time.Duration
	l := newLocal(agent, RateLimitPolicy{MaxWait: time.Hour, Backoff: func(a int) time.Duration { return time.Duration(a+1) * time.Second }}, &slept)
	res, waited, err := l.runAgent(t.Context(), loop.AgentRequest{})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("runAgent = %+v, %v; want the third, successful run", res, err)
	}
	// backoff for the first (no reset time), the reset time for the second
	if want := []time.Duration{time.Second, 30 * time.Second}; len(slept) != 2 || slept[0] != want[0] || slept[1] != want[1] {
		t.Errorf("slept %v, want %v", slept, want)
	}
	if waited.all != 31*time.Second || waited.paused != 30*time.Second {
		t.Errorf("waited %+v, want 31s in all, 30s of it paused for the usage limit", waited)
	}
	// Each wait's warning carries its length, for a notification of a long pause.
	if got := l.Screen.(*warnings).waits; !slices.Equal(got, []time.Duration{time.Second, 30 * time.Second}) {
		t.Errorf("warnings carry the waits %v, want [1s 30s]", got)
	}
}

func TestRunAgentFallsBackThenStops(t *testing.T) {
	t.Parallel()
	limited := evidence.AgentResult{ExitCode: 1, RateLimited: true, Reason: "quota"}
	agent := &scriptedAgent{results: []evidence.AgentResult{limited}}
	var slept []time.Duration
	l := newLocal(agent, RateLimitPolicy{MaxWait: time.Minute, Fallback: []string{"codex"}, Backoff: func(int) time.Duration { return 2 * time.Minute }}, &slept)
	_, _, err := l.runAgent(t.Context(), loop.AgentRequest{})
	var stop *loop.StopError
	if !errors.As(err, &stop) || stop.Status != state.StatusAborted {
		t.Fatalf("err = %v, want a stop as aborted", err)
	}
	if len(agent.ran) != 2 || agent.ran[0] != "" || agent.ran[1] != "codex" {
		t.Errorf("agents run %q, want the configured one then codex", agent.ran)
	}
	if len(slept) != 0 {
		t.Errorf("slept %v: a wait past the limit must not be waited", slept)
	}
}

// A usage limit with its reset (a usage window) moves to the fallback agent at
// once, however long MaxWait is; the fallback at its own usage limit, with no
// other left, pauses until its reset, past MaxWait, and runs again.
func TestRunAgentUsageWindow(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 1, 1, 15, 0, 0, 0, time.UTC) // 5 h ahead
	agent := &scriptedAgent{results: []evidence.AgentResult{
		{Agent: "claude", ExitCode: 1, RateLimited: true, Reason: "You've hit your session limit · resets 3pm (UTC)", ResetAt: reset},
		{Agent: "codex", ExitCode: 1, RateLimited: true, Reason: "You’ve hit your usage limit. … try again at 3:00 PM.", ResetAt: reset},
		{Agent: "codex", ExitCode: 0},
	}}
	var slept []time.Duration
	l := newLocal(agent, RateLimitPolicy{MaxWait: time.Hour, Fallback: []string{"codex"}}, &slept)
	res, waited, err := l.runAgent(t.Context(), loop.AgentRequest{Started: l.Now()})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("runAgent = %+v, %v; want codex's run after the reset", res, err)
	}
	if !slices.Equal(agent.ran, []string{"", "codex", "codex"}) {
		t.Errorf("agents run %q, want the configured one, then codex at once, then codex after its reset", agent.ran)
	}
	if !agent.started[2].Equal(agent.started[1].Add(5 * time.Hour)) {
		t.Errorf("the run after the pause started its iteration at %s, want 5h after %s: the pause is not its time", agent.started[2], agent.started[1])
	}
	if !slices.Equal(slept, []time.Duration{5 * time.Hour}) || waited != (waits{5 * time.Hour, 5 * time.Hour}) {
		t.Errorf("slept %v (waited %v), want one pause of 5h: until the reset", slept, waited)
	}
	ws := l.Screen.(*warnings)
	if !slices.Equal(ws.waits, []time.Duration{0, 5 * time.Hour}) || !strings.Contains(strings.Join(ws.got, "\n"), "paused until "+l.when(reset)) ||
		!strings.Contains(strings.Join(ws.got, "\n"), "switching to the fallback agent codex") {
		t.Errorf("warnings %q (waits %v): want the switch and the pause until the reset", ws.got, ws.waits)
	}
}

// The fallback that stands in for an agent at its usage limit says so in its
// result (whose agent, until when), for the decision to weigh; an iteration
// that awaits that reset waits for it, unbilled, and runs the configured
// agent, never a fallback.
func TestRunAgentStandInAndAwaitReset(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 1, 1, 10, 2, 0, 0, time.UTC) // 2 min ahead
	agent := &scriptedAgent{results: []evidence.AgentResult{
		{Agent: "codex", ExitCode: 1, RateLimited: true, Reason: "try again at 10:01 AM", ResetAt: reset},
		{Agent: "claude", ExitCode: 0},
	}}
	var slept []time.Duration
	l := newLocal(agent, RateLimitPolicy{MaxWait: time.Hour, Fallback: []string{"claude"}}, &slept)
	res, _, err := l.runAgent(t.Context(), loop.AgentRequest{})
	if err != nil || res.Agent != "claude" || res.StandInFor != "codex" || !res.StandInUntil.Equal(reset) {
		t.Fatalf("runAgent = %+v, %v; want claude standing in for codex until %s", res, err, reset)
	}

	agent = &scriptedAgent{results: []evidence.AgentResult{{Agent: "codex", ExitCode: 0}}}
	slept = nil
	l = newLocal(agent, RateLimitPolicy{MaxWait: time.Hour, Fallback: []string{"claude"}}, &slept)
	started := time.Date(2026, 1, 1, 9, 59, 0, 0, time.UTC)
	res, waited, err := l.runAgent(t.Context(), loop.AgentRequest{AwaitReset: reset, Started: started})
	if err != nil || res.StandInFor != "" || !slices.Equal(agent.ran, []string{""}) {
		t.Fatalf("runAgent = %+v, %v; agents run %q: want the configured agent after the reset", res, err, agent.ran)
	}
	if !slices.Equal(slept, []time.Duration{2 * time.Minute}) || waited != (waits{2 * time.Minute, 2 * time.Minute}) {
		t.Errorf("slept %v, waited %+v, want the 2 min to the reset, unbilled", slept, waited)
	}
	// The iteration's timeout counts from after the wait: the agent is not
	// started with its time already spent.
	if want := started.Add(2 * time.Minute); !agent.started[0].Equal(want) {
		t.Errorf("the agent's iteration started at %s, want %s: the wait is not its time", agent.started[0], want)
	}
	// With the ledger, an iteration that awaits the reset is routed to the
	// configured agent alone: its reservation waits for the window to end.
	if names, _ := Routes(loop.StepRequest{AwaitReset: reset}, []string{"claude"}, nil); !slices.Equal(names, []string{""}) {
		t.Errorf("routes %q, want the configured agent alone", names)
	}
	if names, _ := Routes(loop.StepRequest{}, []string{"claude"}, nil); !slices.Equal(names, []string{"", "claude"}) {
		t.Errorf("routes %q, want the configured agent, then its fallback", names)
	}
}

func TestRunAgentRetriesTransientFailuresBounded(t *testing.T) {
	t.Parallel()
	agent := &scriptedAgent{results: []evidence.AgentResult{{ExitCode: 1, Transient: true, Reason: "connection reset"}}}
	var slept []time.Duration
	l := newLocal(agent, RateLimitPolicy{MaxTransient: 2, MaxWait: time.Hour}, &slept)
	res, _, err := l.runAgent(t.Context(), loop.AgentRequest{})
	if err != nil || !res.Transient {
		t.Fatalf("runAgent = %+v, %v; want the transient result after the retries", res, err)
	}
	if len(agent.ran) != 3 || len(slept) != 2 {
		t.Errorf("ran %d times, slept %d times; want 3 and 2", len(agent.ran), len(slept))
	}
}

func TestRunAgentStopsWhenTheAgentCannotStart(t *testing.T) {
	t.Parallel()
	agent := &scriptedAgent{results: []evidence.AgentResult{{StartFailed: true, ExitCode: -1, Reason: "start claude: not found: install claude or set the agent's cmd"}}}
	var slept []time.Duration
	l := newLocal(agent, RateLimitPolicy{MaxTransient: 2}, &slept)
	_, _, err := l.runAgent(t.Context(), loop.AgentRequest{})
	var stop *loop.StopError
	if !errors.As(err, &stop) || stop.Reason != "start claude: not found: install claude or set the agent's cmd" {
		t.Fatalf("err = %v, want a stop naming what to fix", err)
	}
	if len(agent.ran) != 1 {
		t.Errorf("ran %d times, want 1", len(agent.ran))
	}
}

// retryingAgent announces the CLI's own retries, as Claude Code's api_retry
// notices do while it runs, then succeeds.
type retryingAgent struct{ retries []agent.Retry }

func (a *retryingAgent) RunAgent(_ context.Context, r loop.AgentRequest) (evidence.AgentResult, error) {
	for _, x := range a.retries {
		r.OnRetry("claude", x)
	}
	return evidence.AgentResult{Agent: "claude", Retries: len(a.retries)}, nil
}

type phases struct {
	warnings
	got []string
}

func (p *phases) Phase(s string) { p.got = append(p.got, s) }

// TestRunAgentTellsTheCLIRetries: each retry the CLI announces is shown on the
// status line and recorded as a warning event; it is not a failed attempt.
func TestRunAgentTellsTheCLIRetries(t *testing.T) {
	t.Parallel()
	var slept []time.Duration
	a := &retryingAgent{retries: []agent.Retry{{Attempt: 3, Max: 10, Status: 429, Error: "rate_limit"}}}
	l := newLocal(a, RateLimitPolicy{MaxWait: time.Hour}, &slept)
	screen := &phases{}
	l.Screen = screen
	res, _, err := l.runAgent(t.Context(), loop.AgentRequest{})
	if err != nil || res.Retries != 1 || len(slept) != 0 {
		t.Fatalf("runAgent = %+v, %v (slept %v); want one run that succeeded", res, err, slept)
	}
	if want := []string{"agent", "agent: rate limited, retry 3/10 (HTTP 429 rate_limit)"}; !slices.Equal(screen.got, want) {
		t.Errorf("phases %q, want %q", screen.got, want)
	}
	if len(screen.warnings.got) != 1 || !strings.HasPrefix(screen.warnings.got[0], "claude: rate limited, retry 3/10") {
		t.Errorf("warnings %q, want the retry", screen.warnings.got)
	}
}
