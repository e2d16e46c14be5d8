package watch

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/report"
)

// Options are what a [Model] reads and runs.
type Options struct {
	// Look reads the state folder's runs and what waits for a person.
	Look func(now time.Time) (report.View, error)
	// Start starts the action's command as a process of its own and returns
	// at once.
	Start    func(a Action) (Started, error)
	Now      func() time.Time
	Interval time.Duration // between two reads
	Base     string        // the repository: report paths are relative to it
	// Args are given to every action's command after its own (the engine's
	// flags the view was started with).
	Args []string
}

// Started is an action's running command.
type Started struct {
	PID int
	Log string // its output
	// Wait waits for it to end and returns its exit code (-1 on a signal,
	// named) and the last line of its output.
	Wait func() (code int, signal, last string)
}

// Model is the live view (a [tea.Model]).
type Model struct {
	o       Options
	view    report.View
	err     error
	sel     string // the selected run's name: kept across reads
	mode    mode
	input   textinput.Model
	pager   viewport.Model
	open    string  // the run whose record is open
	confirm *Action // waiting for y
	said    []string
	goes    []Going // what goes on after the view: resumed runs
	width   int
	height  int
}

type mode int

const (
	modeList    mode = iota
	modeOpen         // a run's record and escalation.md
	modeGuide        // typing guidance
	modeConfirm      // y or n
)

// New is the view with o.
func New(o Options) *Model {
	in := textinput.New()
	in.Prompt = "guidance> "
	in.Placeholder = "what the agent should do next; enter sends, esc cancels"
	st := in.Styles()
	st.Cursor.Blink = false // a steady cursor: a blink is a message every half second
	in.SetStyles(st)
	return &Model{o: o, input: in, pager: viewport.New(), width: 100, height: 30}
}

// Going is a run resumed from the view, still running.
type Going struct {
	Run string
	PID int
	Log string // its output
}

// Goes says what goes on after the view ends: each run resumed from it that
// still runs.
func (m *Model) Goes() []Going { return m.goes }

type (
	lookedMsg  report.View
	lookErrMsg struct {
		view report.View
		err  error
	}
	tickMsg    struct{}
	reportMsg  struct{ run, text string }
	startedMsg struct {
		a   Action
		s   Started
		err error
	}
	endedMsg struct {
		a            Action
		pid, code    int
		signal, last string
	}
)

// Init reads the state folder.
func (m *Model) Init() tea.Cmd { return m.look() }

func (m *Model) look() tea.Cmd {
	return func() tea.Msg {
		v, err := m.o.Look(m.o.Now())
		if err != nil {
			return lookErrMsg{v, err}
		}
		return lookedMsg(v)
	}
}

func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.o.Interval, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update takes one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.sizePager()
		m.input.SetWidth(max(msg.Width-12, 10))
		return m, nil
	case lookedMsg:
		m.view, m.err = report.View(msg), nil
		m.keepSelection()
		m.sizePager()
		return m, m.tick()
	case lookErrMsg:
		m.view, m.err = msg.view, msg.err
		m.keepSelection()
		m.sizePager()
		return m, m.tick()
	case tickMsg:
		return m, m.look()
	case reportMsg:
		if msg.run == m.open {
			m.pager.SetContent(msg.text)
			m.pager.GotoTop()
		}
		return m, nil
	case startedMsg:
		return m, m.started(msg)
	case endedMsg:
		m.ended(msg)
		return m, m.look()
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// keepSelection selects the first row when the selected one is gone.
func (m *Model) keepSelection() {
	if m.row() == nil && len(m.view.Runs) > 0 {
		m.sel = m.view.Runs[0].Name
	}
}

// row is the selected row, nil when there is none.
func (m *Model) row() *report.WatchRow {
	for i := range m.view.Runs {
		if m.view.Runs[i].Name == m.sel {
			return &m.view.Runs[i]
		}
	}
	return nil
}

// need is the record of what the run named run waits for, nil when it waits
// for nobody.
func (m *Model) need(run string) *decision.Waiting {
	for i := range m.view.NeedsYou {
		if m.view.NeedsYou[i].Run == run {
			return &m.view.NeedsYou[i]
		}
	}
	return nil
}

func (m *Model) move(by int) {
	i := slices.IndexFunc(m.view.Runs, func(r report.WatchRow) bool { return r.Name == m.sel })
	if len(m.view.Runs) == 0 {
		return
	}
	i = min(max(i+by, 0), len(m.view.Runs)-1)
	m.sel = m.view.Runs[i].Name
}

// nextWaiting selects the next run after the selected one that waits for you.
func (m *Model) nextWaiting() {
	i := slices.IndexFunc(m.view.Runs, func(r report.WatchRow) bool { return r.Name == m.sel })
	for k := 1; k <= len(m.view.Runs); k++ {
		r := m.view.Runs[(i+k+len(m.view.Runs))%len(m.view.Runs)]
		if m.need(r.Name) != nil {
			m.sel = r.Name
			return
		}
	}
}

// say keeps a line for the bottom of the view.
func (m *Model) say(format string, args ...any) {
	m.said = append(m.said, m.o.Now().Format("15:04:05")+" "+fmt.Sprintf(format, args...))
	if len(m.said) > 4 {
		m.said = m.said[len(m.said)-4:]
	}
	m.sizePager()
}

// openRecord shows the selected run's record and reads its report.
func (m *Model) openRecord() tea.Cmd {
	r := m.row()
	if r == nil {
		return nil
	}
	need := m.need(r.Name)
	if need == nil {
		m.say("%s waits for nobody (%s)", r.Name, r.Status)
		return nil
	}
	m.mode, m.open = modeOpen, r.Name
	m.sizePager()
	m.pager.SetContent("")
	path := need.Report
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(m.o.Base, path)
	}
	run := r.Name
	return func() tea.Msg {
		if path == "" {
			return reportMsg{run, "(no report: the record above is all there is)"}
		}
		b, err := readHead(path, 256<<10)
		if err != nil {
			return reportMsg{run, fmt.Sprintf("(cannot read %s: %v)", path, err)}
		}
		return reportMsg{run, string(b)}
	}
}

// readHead reads the first n bytes of the file at path.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := f.Read(b)
	if k > 0 {
		err = nil
	}
	return b[:k], err
}

// run starts the action's command.
func (m *Model) run(a Action) tea.Cmd {
	a.Args = append(slices.Clone(a.Args), m.o.Args...)
	m.say("%s", a)
	return func() tea.Msg {
		s, err := m.o.Start(a)
		return startedMsg{a, s, err}
	}
}

func (m *Model) started(msg startedMsg) tea.Cmd {
	if msg.err != nil {
		m.say("%s: %v", msg.a.Args[0], msg.err)
		return nil
	}
	if msg.a.Goes {
		m.goes = append(m.goes, Going{msg.a.Run, msg.s.PID, msg.s.Log})
		m.say("%s goes on (pid %d): it keeps running when you quit; its output: %s", msg.a.Run, msg.s.PID, msg.s.Log)
	}
	return func() tea.Msg {
		code, signal, last := msg.s.Wait()
		return endedMsg{msg.a, msg.s.PID, code, signal, last}
	}
}

func (m *Model) ended(msg endedMsg) {
	how := fmt.Sprintf("exit %d", msg.code)
	if msg.signal != "" {
		how = msg.signal
	}
	if msg.last != "" {
		how += ": " + msg.last
	}
	m.say("%s %s: %s", msg.a.Args[0], msg.a.Run, how)
	m.goes = slices.DeleteFunc(m.goes, func(g Going) bool { return g.PID == msg.pid })
}

// LastLine is the last line that is not blank of the file at path (of its
// last 4 KiB), "" when there is none.
func LastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 4<<10 {
		_, _ = f.Seek(-4<<10, io.SeekEnd)
	}
	b, _ := io.ReadAll(io.LimitReader(f, 4<<10))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
