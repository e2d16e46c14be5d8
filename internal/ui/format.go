package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/review"
)

type level int

const (
	levelDetail level = iota
	levelInfo
	levelWarn
	levelFinal
)

// format renders an event as one progress line, or "" for events not shown.
func (p *Printer) format(ev loop.Event) (string, level) {
	d := ev.Data
	switch ev.Type {
	case "run_started":
		verb := "Starting"
		if boolOf(d["resumed"]) {
			verb = "Resuming"
		}
		limit := "unlimited iterations"
		if m := intOf(d["max_iterations"]); m > 0 {
			limit = fmt.Sprintf("max %d %s", m, plural(m, "iteration"))
		}
		if boolOf(d["resumed"]) {
			return fmt.Sprintf("%s procedure: %s at iteration %d (%s)", verb, str(d["procedure"]), intOf(d["iteration"])+1, limit), levelInfo
		}
		return fmt.Sprintf("%s procedure: %s (%s)", verb, str(d["procedure"]), limit), levelInfo
	case "baseline_started":
		return "Baseline: running the gates on the untouched tree...", levelInfo
	case "baseline_finished":
		if n := intOf(d["failures"]); n > 0 {
			return fmt.Sprintf("Baseline: %d %s already present (they do not count against the agent)", n, plural(n, "failure")), levelInfo
		}
		return "Baseline: all gates green", levelInfo
	case "iteration_started":
		s := p.iterLabel(ev.Iteration) + " starting"
		if st := str(d["strategy"]); st != "" {
			s += " (" + st + ")"
		}
		return s + "...", levelInfo
	case "phase":
		return fmt.Sprintf("%s: %s", p.iterLabel(ev.Iteration), str(d["text"])), levelDetail
	case "iteration_finished":
		dur := Duration(time.Duration(intOf(d["duration_ms"])) * time.Millisecond)
		msg := str(d["message"])
		if v := str(d["review"]); v != "" {
			msg = strings.TrimSpace(fmt.Sprintf("%s (reviewer: %s, score %g)", msg, review.Display(v), floatOf(d["review_score"])))
		}
		if boolOf(d["succeeded"]) {
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
		if t := intOf(d["failure_threshold"]); t > 0 {
			s += fmt.Sprintf(" (consecutive failures: %d/%d)", intOf(d["consecutive_failures"]), t)
		}
		if a := str(d["action"]); a != "" && a != string(loop.ActionContinue) && p.o.Verbose {
			s += " → " + a
		}
		return s, levelWarn
	case "rollback":
		return fmt.Sprintf("Rolling back the work tree to checkpoint %s", short(str(d["checkpoint"]))), levelInfo
	case "warning":
		return "WARNING: " + str(d["message"]), levelWarn
	case "escalated":
		s := "ESCALATED: " + str(d["reason"])
		if q := str(d["question"]); q != "" {
			s += "\n  Question: " + q
		}
		return s, levelWarn
	case "run_finished":
		total := Duration(time.Duration(intOf(d["wall_ms"])) * time.Millisecond)
		n := intOf(d["iterations"])
		return fmt.Sprintf("Finished: %s — %s (%d %s, total time %s)", str(d["status"]), str(d["reason"]), n, plural(n, "iteration"), total), levelFinal
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

func str(v any) string {
	s, _ := v.(string)
	return s
}

func boolOf(v any) bool {
	b, _ := v.(bool)
	return b
}

func intOf(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	case loop.Millis:
		return int(n)
	}
	return 0
}

func floatOf(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	}
	return 0
}
