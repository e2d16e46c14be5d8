package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

type level int

const (
	levelDetail level = iota
	levelInfo
	levelWarn
	levelFinal
)

// format renders an event as one progress line, or "" for events not shown.
func (p *Printer) format(ev state.Event) (string, level) {
	switch d := ev.Data.(type) {
	case state.RunStarted:
		verb := "Starting"
		if d.Resumed {
			verb = "Resuming"
		}
		limit := "unlimited iterations"
		if m := d.MaxIterations; m > 0 {
			limit = fmt.Sprintf("max %d %s", m, plural(m, "iteration"))
		}
		if d.Resumed {
			return fmt.Sprintf("%s procedure: %s at iteration %d (%s)", verb, d.Procedure, d.Iteration+1, limit), levelInfo
		}
		return fmt.Sprintf("%s procedure: %s (%s)", verb, d.Procedure, limit), levelInfo
	case state.BaselineStarted:
		return "Baseline: running the gates on the untouched tree...", levelInfo
	case state.BaselineFinished:
		if n := d.Failures; n > 0 {
			return fmt.Sprintf("Baseline: %d %s already present (they do not count against the agent)", n, plural(n, "failure")), levelInfo
		}
		return "Baseline: all gates green", levelInfo
	case state.IterationStarted:
		s := p.iterLabel(ev.Iteration) + " starting"
		if d.Strategy != "" {
			s += " (" + d.Strategy + ")"
		}
		return s + "...", levelInfo
	case state.IterationFinished:
		dur := Duration(d.Duration.Duration())
		msg := d.Message
		if d.Action == state.ActionEscalate {
			// The ESCALATED line that follows says why, once.
			msg = "escalating"
		}
		if d.Review != "" {
			msg = strings.TrimSpace(fmt.Sprintf("%s (reviewer: %s, score %g)", msg, evidence.DisplayVerdict(d.Review), d.ReviewScore))
		}
		if d.Succeeded {
			s := fmt.Sprintf("%s completed in %s", p.iterLabel(ev.Iteration), dur)
			if msg != "" {
				s += ": " + msg
			}
			return s, levelInfo
		}
		s := fmt.Sprintf("WARNING: %s failed in %s", p.iterLabel(ev.Iteration), dur)
		if msg != "" {
			s += ": " + msg
		}
		// The decider's reason to abort already ends with the count.
		if t := d.FailureThreshold; t > 0 && !strings.Contains(msg, "consecutive failures") {
			s += fmt.Sprintf(" (consecutive failures: %d/%d)", d.ConsecutiveFailures, t)
		}
		if a := d.Action; a != "" && a != state.ActionContinue && p.o.Verbose {
			s += " → " + string(a)
		}
		return s, levelWarn
	case state.Rollback:
		if d.Reason != "" {
			return fmt.Sprintf("%s: the work tree goes back to checkpoint %s", upperFirst(d.Reason), short(d.Checkpoint)), levelInfo
		}
		return fmt.Sprintf("Rolling back the work tree to checkpoint %s", short(d.Checkpoint)), levelInfo
	case state.Warning:
		return "WARNING: " + d.Message, levelWarn
	case state.Escalated:
		s := "ESCALATED: " + d.Reason
		if d.Question != "" {
			s += "\n  Question: " + d.Question
		}
		return s, levelWarn
	case state.Message:
		return d.Text, levelInfo
	case state.HandoffRecorded:
		if d.Kind == state.HandoffGuide {
			return d.Handoff.GuideLine(), levelInfo
		}
	case state.NotificationFailed:
		return fmt.Sprintf("WARNING: notification %s to %s not delivered (%d %s): %s", d.Notification, d.Target, d.Attempts, plural(d.Attempts, "attempt"), d.Error), levelWarn
	case state.NotificationSent:
		if p.o.Verbose {
			return fmt.Sprintf("Notification %s sent to %s", d.Notification, d.Target), levelInfo
		}
	case state.RunFinished:
		total := Duration(d.Wall.Duration())
		n := d.Iterations
		if d.Reason == "" || d.Reason == p.status.escalated {
			return fmt.Sprintf("Finished: %s (%d %s, total time %s)", d.Status, n, plural(n, "iteration"), total), levelFinal
		}
		return fmt.Sprintf("Finished: %s — %s (%d %s, total time %s)", d.Status, d.Reason, n, plural(n, "iteration"), total), levelFinal
	}
	return "", levelDetail
}

func (p *Printer) iterLabel(n int) string {
	if p.status.max > 0 {
		return fmt.Sprintf("Iteration %d/%d", n, p.status.max)
	}
	return fmt.Sprintf("Iteration %d", n)
}

// Duration formats a duration the way progress lines show it: 45.2s, 2m05.3s, 1h02m.
func Duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		m := int(d / time.Minute)
		return fmt.Sprintf("%dm%04.1fs", m, (d - time.Duration(m)*time.Minute).Seconds())
	default:
		h := int(d / time.Hour)
		return fmt.Sprintf("%dh%02dm", h, int((d-time.Duration(h)*time.Hour)/time.Minute))
	}
}

func clock(d time.Duration) string {
	d = d.Round(time.Second)
	if d >= time.Hour {
		return fmt.Sprintf("%d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
	}
	return fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func short(ref string) string {
	if !strings.HasPrefix(ref, "refs/") && len(ref) > 12 {
		return ref[:12]
	}
	return ref
}

// upperFirst starts s with a capital letter.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
