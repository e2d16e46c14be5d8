package watch

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// keysHelp is the one line of help of each mode, as the view's last line says it.
var keysHelp = map[mode]string{
	modeList:    "↑/↓ select · n next waiting · enter open · g guide · a accept · x abort · s stop · S stop now · r refresh · q quit",
	modeOpen:    "↑/↓ scroll · g guide · a accept · x abort · esc back · q quit",
	modeGuide:   "enter send · esc cancel",
	modeConfirm: "y yes · any other key no",
}

// key takes a key press in the current mode.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		return tea.Quit
	}
	switch m.mode {
	case modeGuide:
		return m.guideKey(k)
	case modeConfirm:
		a := m.confirm
		m.confirm, m.mode = nil, m.back()
		if s == "y" || s == "Y" {
			return m.run(*a)
		}
		m.say("not done: %s", a)
		return nil
	case modeOpen:
		switch s {
		case "esc", "left", "h":
			m.mode, m.open = modeList, ""
			return nil
		case "g", "a", "x", "q":
			return m.common(s)
		}
		var cmd tea.Cmd
		m.pager, cmd = m.pager.Update(k)
		return cmd
	}
	switch s {
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "home":
		m.move(-len(m.view.Runs))
	case "end":
		m.move(len(m.view.Runs))
	case "n", "tab":
		m.nextWaiting()
	case "enter", "o", "right", "l":
		return m.openRecord()
	case "r":
		return m.look()
	case "s", "S":
		if r := m.row(); r != nil {
			return m.ask(Stop(r.Name, s == "S"))
		}
	default:
		return m.common(s)
	}
	return nil
}

// common takes the keys of both the list and an open record.
func (m *Model) common(s string) tea.Cmd {
	r := m.row()
	switch {
	case s == "q":
		return tea.Quit
	case r == nil:
		return nil
	case s == "g":
		m.mode = modeGuide
		m.input.Reset()
		return m.input.Focus()
	case s == "a":
		return m.ask(Accept(r.Name))
	case s == "x":
		return m.ask(Abort(r.Name))
	}
	return nil
}

// ask asks to confirm a.
func (m *Model) ask(a Action) tea.Cmd {
	m.confirm, m.mode = &a, modeConfirm
	return nil
}

// back is the mode a prompt returns to.
func (m *Model) back() mode {
	if m.open != "" {
		return modeOpen
	}
	return modeList
}

func (m *Model) guideKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.input.Blur()
		m.mode = m.back()
		return nil
	case "enter":
		text := strings.TrimSpace(m.input.Value())
		m.input.Blur()
		m.mode = m.back()
		r := m.row()
		if text == "" || r == nil {
			m.say("no guidance given")
			return nil
		}
		return m.run(Guide(*r, m.need(r.Name), text))
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}
