package report

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/state"
)

// baselineMaxLength bounds the baseline's failures in a report: more than a
// prompt's cap, told the same way (grouped by package and test, shared causes
// once).
const baselineMaxLength = 2000

// baselineMD writes what the baseline gates found before the first
// iteration, as the first prompt told it, and what each flaky check ran;
// nothing when the baseline found nothing failing.
func baselineMD(b *bufio.Writer, s *state.State) {
	if !s.BaselineDone || len(s.Baseline) == 0 {
		return
	}
	text := gate.Render(s.Baseline, nil, gate.RenderOptions{MaxLength: baselineMaxLength})
	var notes []string
	for _, g := range s.Baseline {
		if g.RerunNote != "" {
			notes = append(notes, fmt.Sprintf("- %s: %s", mdCell(g.Name), mdCell(g.RerunNote)))
		}
	}
	if text == "" && len(notes) == 0 {
		return
	}
	b.WriteString("## Baseline\n\n")
	if text != "" {
		b.WriteString("What failed before the first iteration:\n\n```text\n" + strings.ReplaceAll(text, "```", "'''") + "\n```\n\n")
	}
	if len(notes) > 0 {
		b.WriteString("Flaky check:\n\n" + strings.Join(notes, "\n") + "\n\n")
	}
}

// outsideTaskHeading and outsideTaskText head the failures the last
// iteration found outside the task, in either form of the report.
const (
	outsideTaskHeading = "Failing before the run, outside the task"
	outsideTaskText    = "These failed before the first iteration, the task does not name them, the agent's changes did not touch them and they fail the same way: they are not this run's failures."
)

// outsideTask labels the failures the last iteration found outside the
// task: there before the run, not named by the task, untouched and the same
// (the decider's word); they did not stop the run and are not its failures.
func outsideTask(s *state.State) []string {
	if len(s.History) == 0 {
		return nil
	}
	var labels []string
	for _, k := range s.History[len(s.History)-1].OutsideTask {
		labels = append(labels, gate.Label(k))
	}
	return labels
}

// outsideTaskMD lists [outsideTask] under its own heading.
func outsideTaskMD(b *bufio.Writer, s *state.State) {
	labels := outsideTask(s)
	if len(labels) == 0 {
		return
	}
	b.WriteString("## " + outsideTaskHeading + "\n\n" + outsideTaskText + "\n\n")
	for _, l := range labels {
		fmt.Fprintf(b, "- %s\n", mdCell(l))
	}
	b.WriteString("\n")
}
