package gate

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/textcut"
)

// DefaultMaxLength is the default total feedback length, in runes.
const DefaultMaxLength = 500

// RenderOptions bound the feedback.
type RenderOptions struct {
	MaxLength int            // total runes over all gates (default 500)
	PerGate   map[string]int // a gate's own budget in runes, overriding its share
	LogDir    string         // where NAME.log lives, for gates without a LogPath
}

// kindRank orders kinds in feedback: what blocks most comes first.
func kindRank(k evidence.Kind) int {
	switch k {
	case evidence.KindBuild:
		return 1
	case evidence.KindType:
		return 2
	case evidence.KindCrash:
		return 3
	case evidence.KindTimeout:
		return 4
	case evidence.KindGate:
		return 5
	case evidence.KindTest:
		return 6
	case evidence.KindTamper:
		return 7
	case evidence.KindLint:
		return 8
	}
	return 9
}

// Render writes the feedback for the next iteration: per failing gate a header
// (command, exit code, what failed in words: "2 build errors, 29 failing tests
// in 3 packages", change since the previous iteration), then numbered items
// "KIND id (file:line): message" — build before crash before test before
// lint, the first of each kind before the rest, new failures before old ones;
// locations are never cut, messages are — and "(+K more; full log: PATH)" when
// the budget runs out. Many failing tests that do not fit are told grouped
// instead: each cause several share once with its count, the distinct
// messages with file:line, then every test by package or file and parent
// test until the budget runs out, the rest counted; a gate with a failures
// file ([FailureList], the result's FailuresPath) then names it in a last
// line that is never cut. Failures the baseline
// already had are listed apart. Gates that passed are left out; gates are
// shown build first, then tests, then lint, and a gate's unused budget passes
// on. Nothing internal (fingerprints, keys) is shown.
func Render(results []evidence.GateResult, deltas map[string]Delta, o RenderOptions) string {
	total := o.MaxLength
	if total <= 0 {
		total = DefaultMaxLength
	}
	var show []evidence.GateResult
	for _, r := range results {
		if !r.Passed || r.Infra || len(r.Findings) > 0 {
			show = append(show, r)
		}
	}
	sort.SliceStable(show, func(i, j int) bool { return gateRank(show[i]) < gateRank(show[j]) })
	// Headers are always shown; the items share what is left, gate by gate, and a
	// gate's unused share passes on to the next.
	withCommand := len(show) > 0 && total/len(show) >= 250
	heads := make([]string, len(show))
	left := total
	for i, r := range show {
		switch {
		case r.Infra && r.ExitCode >= 0:
			heads[i] = fmt.Sprintf("%s could not be judged: %s (not counted against the change)", r.Name, r.InfraReason)
		case r.Infra:
			heads[i] = fmt.Sprintf("%s could not run: %s (not counted against the change)", r.Name, r.InfraReason)
		default:
			heads[i] = header(r, deltas[r.Name], withCommand)
		}
		heads[i] = textcut.Runes(heads[i], max(total/len(show), 60))
		if note := r.OutputProblems(); note != "" && !r.Infra {
			heads[i] += "\n" + textcut.Runes("note: "+note, max(total/len(show), 60))
		}
		left -= utf8.RuneCountInString(heads[i]) + 1
	}
	var b strings.Builder
	for i, r := range show {
		b.WriteString(heads[i] + "\n")
		if r.Infra {
			continue
		}
		share := max(left, 0) / (len(show) - i)
		if n, ok := o.PerGate[r.Name]; ok && n > 0 {
			share = min(max(n-utf8.RuneCountInString(heads[i])-1, 0), max(left, 0))
		}
		body := renderItems(r, deltas[r.Name], share, o.LogDir, i == 0)
		b.WriteString(body)
		left -= utf8.RuneCountInString(body)
	}
	if note := FlakyNote(results); note != "" {
		// Not a failure to work on: said so that nobody chases it.
		b.WriteString(note + " (not counted)\n")
	}
	return textcut.Runes(strings.TrimRight(b.String(), "\n"), total)
}

func gateRank(r evidence.GateResult) int {
	best := 10
	for _, f := range r.Findings {
		best = min(best, kindRank(f.Kind))
	}
	if r.Infra {
		best = 0
	}
	return best
}

// preHeading introduces the failures the baseline already had.
const preHeading = "Already failing before the run:"

// renderItems writes a gate's failures within budget runes: the agent's
// first, then, under [preHeading], those the baseline already had; then the
// failures fixed since the previous iteration when they fit. Each part is a
// numbered list with location and message when the whole list fits, and a
// grouped account ([groupedItems]) when it does not. With first (the first
// gate shown) its first item is shown whatever the budget. When the lists
// leave a failure or part of a message out and the gate has a failures file
// ([FailureList]), a last line names it, its room kept first: the agent
// reads there what the feedback could only count.
func renderItems(r evidence.GateResult, d Delta, budget int, logDir string, first bool) string {
	logPath := r.LogPath
	if logPath == "" && logDir != "" {
		logPath = filepath.Join(logDir, r.Name+".log")
	}
	text, all := renderParts(r, d, budget, logPath, first)
	line := failuresLine(r)
	if line != "" && !all {
		if room := budget - utf8.RuneCountInString(line) - 1; room >= minFailuresRoom {
			// The failures file names the whole log: the footers need not.
			text, _ = renderParts(r, d, room, "", first)
			text += line + "\n"
		}
	}
	if len(d.Fixed) > 0 {
		labels := make([]string, len(d.Fixed))
		for i, k := range d.Fixed {
			labels[i] = Label(k)
		}
		if room := budget - utf8.RuneCountInString(text) - 1; room > 40 {
			text += textcut.Runes("Fixed since the previous iteration: "+strings.Join(labels, "; "), room) + "\n"
		}
	}
	return text
}

// minFailuresRoom is the least room, in runes, the failures of a gate keep
// beside the line that names its failures file; with less the line is left
// out.
const minFailuresRoom = 60

// renderParts writes the agent's failures and the baseline's ([renderItems])
// within budget runes; all reports whether every failure was written with its
// whole message.
func renderParts(r evidence.GateResult, d Delta, budget int, logPath string, first bool) (string, bool) {
	var b strings.Builder
	used := 0
	n := 0
	complete := true
	for _, part := range []struct {
		heading string
		fs      []evidence.Finding
	}{{"", r.Findings}, {preHeading, r.Preexisting}} {
		if len(part.fs) == 0 {
			continue
		}
		room := budget - used
		if part.heading != "" {
			room -= utf8.RuneCountInString(part.heading) + 1
			if room < 40 {
				complete = false
				break
			}
		}
		items := collapse(order(part.fs, d))
		text, all := listItems(items, n, room, logPath, first && n == 0)
		if !all && grouped(items, room) {
			text = groupedItems(items, n, room, logPath, first && n == 0)
		}
		complete = complete && all
		if part.heading != "" {
			text = part.heading + "\n" + text
		}
		b.WriteString(text)
		used += utf8.RuneCountInString(text)
		n += len(items)
	}
	return b.String(), complete
}

// grouped reports whether items are many tests enough, and the room large
// enough, for a grouped account to tell more than a cut list.
func grouped(items []item, room int) bool {
	tests := 0
	for _, it := range items {
		if isTestKind(it.f.Kind) {
			tests++
		}
	}
	return tests >= 4 && room >= 160
}
