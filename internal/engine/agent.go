package engine

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

// runAgent runs the agent, waiting out rate limits and retrying transient
// failures: neither counts as a failed iteration. After RateLimit.MaxWait the
// next fallback agent takes over; with none left the run stops as aborted. A
// usage limit with its reset time (a usage window) moves to the next fallback
// at once; with none left the agent pauses until the reset, however far, and
// the pause is not billed: the run's time budget stands still through it.
func (l *Local) runAgent(ctx context.Context, req loop.AgentRequest) (evidence.AgentResult, waits, error) {
	p := l.RateLimit
	fallbacks := p.Fallback
	var waited waits
	var agentWait time.Duration
	transient := 0
	if req.OnRetry == nil {
		req.OnRetry = func(name string, r agent.Retry) {
			// The CLI retries by itself: shown on the status line and recorded,
			// not counted as anything (the run's outcome judges it). A rejected
			// key ends the agent at once and the stop says so.
			l.phase("agent: " + r.String())
			if !r.Auth() {
				l.warn("%s: %s; the CLI retries by itself", cmp.Or(name, "the agent"), r)
			}
		}
	}
	if req.OnUsage == nil {
		req.OnUsage = l.usage
	}
	if req.OnTool == nil {
		req.OnTool = l.tool
	}
	if err := l.awaitReset(ctx, req, &waited); err != nil {
		return evidence.AgentResult{}, waited, err
	}
	// An unbilled wait (for a usage limit's reset) is not the agent's time:
	// its iteration's timeout counts from after it.
	unbilled := func(d time.Duration) {
		if !req.Started.IsZero() {
			req.Started = req.Started.Add(d)
		}
	}
	unbilled(waited.paused)
	// standIn is the agent a fallback runs for while its account is at its
	// usage limit, and the reset: the fallback's result says so.
	var standIn evidence.AgentResult
	if req.Agent != "" && req.Agent == l.switchTo {
		standIn.StandInFor, standIn.StandInUntil = l.switchFor, l.switchUntil
	}
	for attempt := 0; ; attempt++ {
		l.phase("agent")
		res, err := l.Agent.RunAgent(ctx, req)
		if res.LeftBehind > 0 {
			l.warn("%s left %d process(es) running outside its process group (setsid, env -i); agentloop killed them", agentName(res, req), res.LeftBehind)
		}
		if err != nil || ctx.Err() != nil {
			if ctx.Err() != nil {
				return res, waited, context.Cause(ctx)
			}
			return res, waited, err
		}
		var wait time.Duration
		switch {
		case res.Outcome.Fatal() || res.StartFailed:
			// Not installed, refused to start, or its key or configuration
			// rejected: no retry or next iteration can help. Stop now with the
			// CLI's own words and what to fix.
			if se := agent.NewSetupError("agent", res); se != nil {
				return res, waited, &loop.StopError{Status: state.StatusAborted, Reason: se.Headline(), Err: se}
			}
			return res, waited, &loop.StopError{Status: state.StatusAborted, Reason: res.Reason}
		case res.RateLimited && !res.ResetAt.IsZero():
			// The account's usage limit, with its reset: every loop on the
			// account pauses until then (not a failure, not an iteration), or
			// moves to a fallback agent and comes back at the next iteration
			// after the reset.
			l.shareWindow(agentName(res, req), res.ResetAt, res.Reason)
			if len(fallbacks) > 0 {
				l.warn("%s is at its usage limit until %s (%s): switching to the fallback agent %s until then",
					agentName(res, req), l.when(res.ResetAt), res.Reason, fallbacks[0])
				if standIn.StandInFor == "" {
					standIn.StandInFor, standIn.StandInUntil = agentName(res, req), res.ResetAt
				}
				req.Agent, fallbacks, agentWait, attempt = fallbacks[0], fallbacks[1:], 0, -1
				l.markAgent(req.Agent)
				continue
			}
			wait = max(res.ResetAt.Sub(l.Now()), time.Second)
			if err := l.pause(ctx, wait, &waited, "usage limit: paused until "+l.when(res.ResetAt), fmt.Sprintf(
				"%s is at its usage limit (%s): paused until %s (%s); the wait is not an iteration and not a failure",
				agentName(res, req), res.Reason, l.when(res.ResetAt), wait.Round(time.Second))); err != nil {
				return res, waited, err
			}
			unbilled(wait)
			continue
		case res.RateLimited:
			wait = l.backoff(attempt)
			if agentWait+wait > p.MaxWait {
				if len(fallbacks) == 0 {
					return res, waited, &loop.StopError{Status: state.StatusAborted,
						Reason: fmt.Sprintf("%s is rate limited and the wait (%s so far, %s more) exceeds the limit of %s; no fallback agent left",
							agentName(res, req), agentWait.Round(time.Second), wait.Round(time.Second), p.MaxWait)}
				}
				l.warn("%s is rate limited; switching to the fallback agent %s", agentName(res, req), fallbacks[0])
				req.Agent, fallbacks, agentWait, attempt = fallbacks[0], fallbacks[1:], 0, -1
				l.markAgent(req.Agent)
				continue
			}
			until := l.Now().Add(wait)
			l.emitWarning(state.Warning{RateLimitWait: state.MillisOf(wait), Message: fmt.Sprintf(
				"%s is rate limited (%s): waiting %s, until %s; this does not count as a failed iteration",
				agentName(res, req), res.Reason, wait.Round(time.Second), until.Format("15:04:05"))})
			agentWait += wait
		case res.Transient && transient < p.MaxTransient: // only a recognised transient outcome
			transient++
			wait = l.backoff(transient - 1)
			l.warn("%s: %s: retry %d/%d in %s", agentName(res, req), res.Summary(), transient, p.MaxTransient, wait.Round(time.Second))
		default:
			res.StandInFor, res.StandInUntil = standIn.StandInFor, standIn.StandInUntil
			return res, waited, nil
		}
		l.phase("waiting")
		if err := l.Sleep(ctx, wait); err != nil {
			return res, waited, err
		}
		waited.all += wait
	}
}

// awaitReset waits, unbilled, for req.AwaitReset: the configured agent's
// usage limit's reset, which the decision chose to wait for rather than run
// its fallback again.
func (l *Local) awaitReset(ctx context.Context, req loop.AgentRequest, waited *waits) error {
	wait := req.AwaitReset.Sub(l.Now())
	if req.AwaitReset.IsZero() || wait <= 0 {
		return nil
	}
	return l.pause(ctx, wait, waited, "usage limit: waiting until "+l.when(req.AwaitReset), fmt.Sprintf(
		"waiting for the agent's usage limit to reset at %s (%s) instead of running the fallback again; the wait is not an iteration and not a failure",
		l.when(req.AwaitReset), wait.Round(time.Second)))
}

// pause waits d for a usage limit's reset, unbilled: said (message, with the
// wait for a notification) and shown (phase), the run's time budget standing
// still, counted in waited as paused.
func (l *Local) pause(ctx context.Context, d time.Duration, waited *waits, phase, message string) error {
	l.emitWarning(state.Warning{RateLimitWait: state.MillisOf(d), Message: message})
	l.phase(phase)
	resume := l.clock.pause()
	err := l.Sleep(ctx, d)
	resume()
	if err != nil {
		return err
	}
	waited.all += d
	waited.paused += d
	return nil
}

// waits is how long an agent's run waited: all of it (rate limits, transient
// failures and usage limits), and of that, the pauses for an account's usage
// limit to reset, which are not billed.
type waits struct{ all, paused time.Duration }

func (l *Local) backoff(attempt int) time.Duration {
	if l.RateLimit.Backoff == nil {
		return time.Duration(1<<min(attempt, 6)) * time.Second
	}
	return l.RateLimit.Backoff(attempt)
}

func agentName(res evidence.AgentResult, req loop.AgentRequest) string {
	if res.Agent != "" {
		return res.Agent
	}
	if req.Agent != "" {
		return req.Agent
	}
	return "the agent"
}

// SleepContext waits for d or until ctx ends.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
