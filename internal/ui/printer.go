package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/textcut"
)

// Options configure a [Printer].
type Options struct {
	Out      io.Writer        // progress lines
	Now      func() time.Time // the clock for timestamps
	JSON     bool             // one JSON event per line instead of text
	Quiet    bool             // only warnings, the final line and errors
	Verbose  bool             // also the details of each iteration
	Terminal bool             // Out is a terminal: draw a live status line
	// Width is the terminal's width in columns, read at every redraw (a pane
	// can be resized); 0 or nil: unknown, the line is not cut.
	Width  func() int
	Prefix string // put before every line (a task's id in a task graph)
	// Color: Out is a colour terminal (and NO_COLOR is not set): warnings
	// are yellow, escalations bold red.
	Color bool
	Task  string // the task's id in a task graph: a "task" key on every JSON line
}

// Printer turns loop events into the lines a person reads. It is safe for
// concurrent use: the live status line is redrawn from a ticker.
type Printer struct {
	o      Options
	mu     sync.Mutex
	status status
	drawn  bool
}

// status is what the live status line shows.
type status struct {
	iteration, max int
	baseline       bool // the baseline gates are running
	phase          string
	since          time.Time
	runStart       time.Time
	before         time.Duration // what the run was at work in earlier sessions
	tokens         int64
	cost           float64
	costKnown      bool
	live           evidence.Usage // the running agent's usage so far, not yet in tokens and cost
	escalated      string         // the reason of the last escalation, said once
}

// New returns a Printer.
func New(o Options) *Printer {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	return &Printer{o: o}
}

// Event prints what a person should see of one loop event.
func (p *Printer) Event(ev state.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Time.IsZero() {
		ev.Time = p.o.Now()
	}
	if p.o.JSON {
		p.json(ev)
		return
	}
	p.track(ev)
	if line, level := p.format(ev); line != "" && (!p.o.Quiet || level > levelInfo) {
		style := styleNone
		if _, ok := ev.Data.(state.Escalated); ok {
			style = styleEscalation
		} else if level == levelWarn {
			style = styleWarning
		}
		p.styled(ev.Time, line, style)
	}
}

// Linef prints a free-form progress line (used by commands around the loop).
func (p *Printer) Linef(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.o.JSON {
		p.json(state.Event{Time: p.o.Now(), Data: state.Message{Text: fmt.Sprintf(format, args...)}})
		return
	}
	p.line(p.o.Now(), fmt.Sprintf(format, args...))
}

// Warnf prints a warning, even when quiet.
func (p *Printer) Warnf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	if p.o.JSON {
		p.json(state.Event{Time: p.o.Now(), Data: state.Warning{Message: msg}})
		return
	}
	p.styled(p.o.Now(), "WARNING: "+msg, styleWarning)
}

// json prints the event as one line of the events' JSON encoding; an event that
// cannot be encoded (a value JSON has no form for, NaN) is named, not lost.
func (p *Printer) json(ev state.Event) {
	b, err := json.Marshal(ev)
	if err != nil {
		b, _ = json.Marshal(state.Event{Time: ev.Time, Iteration: ev.Iteration, Data: state.Warning{Message: err.Error()}})
	}
	if p.o.Task != "" {
		// The tasks of a graph share one stream: each line names its task.
		task, _ := json.Marshal(p.o.Task)
		b = append(append([]byte(`{"task":`), task...), append([]byte{','}, b[1:]...)...)
	}
	fmt.Fprintf(p.o.Out, "%s\n", b)
}

// Terminal reports whether the printer draws a live status line.
func (p *Printer) Terminal() bool { return p.o.Terminal && !p.o.JSON }

// Phase sets the phase shown on the live status line (agent, gates, review…).
func (p *Printer) Phase(phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status.phase = phase
	p.status.since = p.o.Now()
}

// Usage sets the running agent's usage so far (tokens and cost as its CLI
// streams them), shown on the live status line until its iteration finishes.
func (p *Printer) Usage(u evidence.Usage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status.live = u
}

// Tick redraws the live status line; the caller runs it on a ticker while a loop
// runs on a terminal.
func (p *Printer) Tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.o.Terminal || p.o.JSON || p.status.iteration == 0 && !p.status.baseline {
		return
	}
	now := p.o.Now()
	s := p.status
	it := "Baseline"
	switch {
	case s.iteration > 0 && s.max > 0:
		it = fmt.Sprintf("Iteration %d/%d", s.iteration, s.max)
	case s.iteration > 0:
		it = fmt.Sprintf("Iteration %d", s.iteration)
	}
	parts := []string{it}
	if s.phase != "" {
		parts = append(parts, fmt.Sprintf("%s %s", s.phase, clock(now.Sub(s.since))))
	}
	parts = append(parts, "elapsed "+clock(s.before+now.Sub(s.runStart)))
	tokens, cost, costKnown := s.tokens, s.cost, s.costKnown
	if s.live.TokensKnown {
		tokens += s.live.TotalTokens()
	}
	if s.live.CostKnown {
		cost, costKnown = cost+s.live.CostUSD, true
	}
	if tokens > 0 {
		parts = append(parts, fmt.Sprintf("%s tokens", count(tokens)))
	}
	if costKnown {
		parts = append(parts, fmt.Sprintf("$%.2f", cost))
	}
	line := strings.Join(parts, " · ")
	// One column short of the width (one a rune: the status line holds no wide
	// characters): a line that fills the last column wraps on some terminals,
	// and each redraw would leave a line behind. A width under 2 is unknown.
	if p.o.Width != nil && p.o.Width() > 1 {
		line = textcut.Runes(line, p.o.Width()-1)
	}
	fmt.Fprintf(p.o.Out, "\r\x1b[2K%s", line)
	p.drawn = true
}

// ClearStatus erases the live status line (before other output reaches the terminal).
func (p *Printer) ClearStatus() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *Printer) clear() {
	if p.drawn {
		fmt.Fprint(p.o.Out, "\r\x1b[2K")
		p.drawn = false
	}
}

func (p *Printer) line(t time.Time, s string) { p.styled(t, s, styleNone) }

// A style is how a line is coloured on a colour terminal: an SGR sequence.
type style string

const (
	styleNone       style = ""
	styleWarning    style = "33"   // yellow
	styleEscalation style = "1;31" // bold red
)

// styled prints a line, its text in style on a colour terminal (each of its
// lines, so that a pager or a cut never carries the colour further).
func (p *Printer) styled(t time.Time, s string, st style) {
	p.clear()
	if p.o.Color && st != styleNone {
		s = "\x1b[" + string(st) + "m" + strings.ReplaceAll(s, "\n", "\x1b[0m\n\x1b["+string(st)+"m") + "\x1b[0m"
	}
	fmt.Fprintf(p.o.Out, "[%s] %s%s\n", t.Format("15:04:05"), p.o.Prefix, s)
}

func (p *Printer) track(ev state.Event) {
	switch d := ev.Data.(type) {
	case state.RunStarted:
		p.status.runStart = ev.Time
		p.status.before = d.Elapsed.Duration()
		p.status.max = d.MaxIterations
	case state.BaselineStarted:
		p.status.baseline = true
		p.status.phase = "gates"
		p.status.since = ev.Time
	case state.BaselineFinished:
		p.status.baseline = false
	case state.IterationStarted:
		p.status.live = evidence.Usage{}
		p.status.iteration = ev.Iteration
		p.status.phase = "agent"
		p.status.since = ev.Time
	case state.Escalated:
		p.status.escalated = d.Reason
	case state.IterationFinished:
		p.status.live = evidence.Usage{} // counted in the iteration's figures
		if d.TokensKnown {
			p.status.tokens += d.Tokens
		}
		if d.CostKnown {
			p.status.costKnown = true
			p.status.cost += d.CostUSD
		}
	}
}
