package watch

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentloop/agentloop/internal/inbox"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
)

var (
	styleTitle    = lipgloss.NewStyle().Bold(true)
	styleHeader   = lipgloss.NewStyle().Bold(true).Underline(true)
	styleSelected = lipgloss.NewStyle().Reverse(true)
	styleFaint    = lipgloss.NewStyle().Faint(true)
	styleWarn     = lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)
	styleStatus   = map[state.Status]lipgloss.Style{
		state.StatusRunning:     lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
		state.StatusSucceeded:   lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		state.StatusCompleted:   lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		state.StatusEscalated:   lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true),
		state.StatusAborted:     lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		state.StatusInterrupted: lipgloss.NewStyle().Foreground(lipgloss.Color("5")),
	}
)

// View draws the view in the terminal's alternate screen.
func (m *Model) View() tea.View {
	var lines []string
	now := m.o.Now()
	title := fmt.Sprintf("agentloop watch — %d runs, %d need you", len(m.view.Runs), len(m.view.NeedsYou))
	lines = append(lines, styleTitle.Render(title)+styleFaint.Render("  "+now.Format("15:04:05")))
	if m.err != nil {
		lines = append(lines, styleWarn.Render("cannot read all of the state folder: "+m.err.Error()))
	}
	lines = append(lines, "")
	if m.open != "" {
		lines = append(lines, m.recordHead()...)
		lines = append(lines, m.pager.View())
	} else {
		lines = append(lines, m.table(now)...)
		lines = append(lines, "")
		lines = append(lines, m.waiting(now)...)
	}
	lines = append(lines, "")
	for _, s := range m.said {
		lines = append(lines, styleFaint.Render(s))
	}
	switch m.mode {
	case modeGuide:
		lines = append(lines, fmt.Sprintf("Guidance for %s:", m.sel), m.input.View())
	case modeConfirm:
		lines = append(lines, styleWarn.Render(fmt.Sprintf("Run %s ? (y/n)", m.confirm)))
	}
	lines = append(lines, styleFaint.Render(keysHelp[m.mode]))
	lines = strings.Split(strings.Join(lines, "\n"), "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "…")
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.WindowTitle = "agentloop watch"
	return v
}

// table is the runs' table, the selected row marked.
func (m *Model) table(now time.Time) []string {
	if len(m.view.Runs) == 0 {
		return []string{"No runs yet. Start one with: agentloop run"}
	}
	cells := [][]string{report.WatchColumns()}
	for _, r := range m.view.Runs {
		cells = append(cells, r.Cells(now))
	}
	widths := report.ColumnWidths(cells)
	pad := func(row []string, style func(i int, s string) string) string {
		var b strings.Builder
		for i, c := range row {
			s := c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i < len(row)-1 {
				s += "  "
			}
			b.WriteString(style(i, s))
		}
		return b.String()
	}
	out := []string{"  " + styleHeader.Render(pad(cells[0], func(_ int, s string) string { return s }))}
	for k, r := range m.view.Runs {
		mark := "  "
		if m.need(r.Name) != nil {
			mark = styleWarn.Render("! ")
		}
		if r.Name == m.sel {
			out = append(out, mark+styleSelected.Render(pad(cells[k+1], func(_ int, s string) string { return s })))
			continue
		}
		out = append(out, mark+pad(cells[k+1], func(i int, s string) string {
			if st, ok := styleStatus[r.Status]; ok && i == 1 {
				return st.Render(s)
			}
			return s
		}))
	}
	return out
}

// waiting is the needs-you list: each record's run, kind, age and question.
func (m *Model) waiting(now time.Time) []string {
	if len(m.view.NeedsYou) == 0 {
		return []string{styleFaint.Render("Nothing needs you.")}
	}
	out := []string{styleTitle.Render(fmt.Sprintf("Needs you (%d) — select its run, enter opens it", len(m.view.NeedsYou)))}
	for _, it := range m.view.NeedsYou {
		mark := "  "
		if it.Run == m.sel {
			mark = "▸ "
		}
		out = append(out, mark+styleWarn.Render(it.Who())+" — "+inbox.KindText(it.Kind)+", "+inbox.Age(now.Sub(it.Since)),
			"    "+it.Question)
	}
	return out
}

// recordHead is the open run's record: what it asks and each option with
// its command; its report follows in the pager.
func (m *Model) recordHead() []string {
	it := m.need(m.open)
	if it == nil {
		return []string{m.open + " waits for nobody any more (esc: back to the list).", ""}
	}
	out := []string{styleWarn.Render(it.Who()) + " — " + inbox.KindText(it.Kind) + ", " + inbox.Age(m.o.Now().Sub(it.Since))}
	for _, l := range strings.Split(strings.TrimSpace(it.Evidence), "\n") {
		if l != "" {
			out = append(out, "  "+l)
		}
	}
	out = append(out, styleTitle.Render("Question: ")+it.Question)
	for i, o := range it.Options {
		out = append(out, fmt.Sprintf("  %d) %s", i+1, o.Label))
		if o.Command != "" {
			out = append(out, styleFaint.Render("     "+o.Command))
		}
	}
	report := it.Report
	if r, err := filepath.Rel(m.o.Base, report); filepath.IsAbs(report) && err == nil && !strings.HasPrefix(r, "..") {
		report = r // as the repository names it
	}
	return append(out, "", styleHeader.Render(cmp.Or(report, "report")))
}

// sizePager fits the pager between the open record's head and the view's
// last lines.
func (m *Model) sizePager() {
	m.pager.SetWidth(m.width)
	if m.open == "" {
		return
	}
	// title, blank, head, pager, blank, said, a prompt's two lines, help
	m.pager.SetHeight(max(m.height-len(m.recordHead())-len(m.said)-6, 3))
}
