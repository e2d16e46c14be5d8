package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
)

var now = time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)

// fixture is a view of three tasks of a graph: one in its agent, one in its
// gates, one escalated with its report in base.
func fixture(t *testing.T) (report.View, string) {
	t.Helper()
	base := t.TempDir()
	esc := filepath.Join(".agentloop", "runs", "g-three", "r1", "escalation.md")
	if err := os.MkdirAll(filepath.Join(base, filepath.Dir(esc)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, esc), []byte("# Escalation: g-three\n\nThe gate never passed.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	row := func(name string, st state.Status, live *state.LiveStatus) report.WatchRow {
		return report.WatchRow{StatusRow: report.StatusRow{Name: name, Status: st, Iteration: 1, MaxIterations: 3}, Live: live}
	}
	return report.View{At: now, Runs: []report.WatchRow{
		row("g-one", state.StatusRunning, &state.LiveStatus{Iteration: 1, Phase: "agent", Since: now.Add(-5 * time.Second), Tool: "Bash: go test ./..."}),
		row("g-two", state.StatusRunning, &state.LiveStatus{Iteration: 1, Phase: "gates", Since: now.Add(-2 * time.Second)}),
		row("g-three", state.StatusEscalated, nil),
	}, NeedsYou: []decision.Waiting{{NeedsYou: decision.NeedsYou{Kind: decision.NeedsEscalated, Run: "g-three", Graph: "g", Task: "three",
		Question: "Which file should hold the answer?", Report: esc,
		Options: []decision.Answer{{Label: "Guide it", Command: "agentloop resume g-three --guidance TEXT"}}}, Since: now.Add(-time.Minute)}}}, base
}

// harness runs a model's commands at once, as the program would, and keeps
// what it started.
type harness struct {
	t       *testing.T
	m       *Model
	started []Action
	quit    bool
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	v, base := fixture(t)
	h := &harness{t: t}
	h.m = New(Options{
		Look: func(time.Time) (report.View, error) { return v, nil },
		Start: func(a Action) (Started, error) {
			h.started = append(h.started, a)
			return Started{PID: 42, Log: "log", Wait: func() (int, string, string) { return 0, "", "done" }}, nil
		},
		Now: func() time.Time { return now }, Interval: time.Hour, Base: base,
	})
	h.send(tea.WindowSizeMsg{Width: 140, Height: 40})
	h.do(h.m.Init())
	return h
}

// do runs cmd and what its messages lead to, except ticks.
func (h *harness) do(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			h.do(c)
		}
	case tea.QuitMsg:
		h.quit = true
	case tickMsg, nil:
	default:
		h.send(msg)
	}
}

func (h *harness) send(msg tea.Msg) {
	_, cmd := h.m.Update(msg)
	if _, ok := msg.(lookedMsg); ok {
		return // the next read is a tick away
	}
	h.do(cmd)
}

// keys presses each key: a name (enter, esc, down) or a text typed.
func (h *harness) keys(keys ...string) {
	for _, k := range keys {
		switch k {
		case "enter":
			h.send(tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			h.send(tea.KeyPressMsg{Code: tea.KeyEscape})
		case "down":
			h.send(tea.KeyPressMsg{Code: tea.KeyDown})
		default:
			for _, r := range k {
				h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
		}
	}
}

func (h *harness) screen() string { return ansi.Strip(h.m.View().Content) }

func (h *harness) see(want ...string) {
	h.t.Helper()
	s := h.screen()
	for _, w := range want {
		if !strings.Contains(s, w) {
			h.t.Errorf("the screen does not show %q:\n%s", w, s)
		}
	}
}

// The list shows each task's phase, the tool its agent runs, the needs-you entry, and marks the
// selection, which the arrows move.
func TestViewShowsPhasesAndWhatWaits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.see("3 runs, 1 need you", "TOOL", "g-one", "agent 5.0s", "Bash: go test ./...", "g-two", "gates 2.0s", "g-three", "waiting for you",
		"Needs you (1)", "g-three (task three of g) — escalated, 1m ago", "Which file should hold the answer?")
	if h.m.sel != "g-one" {
		t.Errorf("selected %q at first, want g-one", h.m.sel)
	}
	h.keys("down")
	if h.m.sel != "g-two" {
		t.Errorf("down selected %q, want g-two", h.m.sel)
	}
	h.keys("n")
	if h.m.sel != "g-three" {
		t.Errorf("n selected %q, want g-three, the one that waits", h.m.sel)
	}
}

// Enter opens the escalation: its question, options and escalation.md; g
// then takes guidance, which resumes the escalated run with it.
func TestOpenAndGuideAnEscalation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.keys("n", "enter")
	h.see("Question: Which file should hold the answer?", "1) Guide it", "agentloop resume g-three --guidance TEXT",
		"# Escalation: g-three", "The gate never passed.")
	h.keys("g", "put it in three.txt", "enter")
	want := []Action{{Run: "g-three", Args: []string{"resume", "g-three", "--guidance", "put it in three.txt"}, Goes: true}}
	if diff := cmp.Diff(want, h.started); diff != "" {
		t.Fatalf("started (-want +got):\n%s", diff)
	}
	h.see("agentloop resume g-three --guidance 'put it in three.txt'", "resume g-three: exit 0: done")
	if len(h.m.Goes()) != 0 {
		t.Errorf("Goes() = %v after its resume ended, want none", h.m.Goes())
	}
}

// Each key gives its command; the ones that end or stop a run ask first, and
// any key but y cancels. Guidance for a running run is queued with guide.
// The view's engine flags follow each command's own arguments.
func TestKeysGiveTheirCommands(t *testing.T) {
	t.Parallel()
	temporal := []string{"--engine=temporal", "--temporal-address=127.0.0.1:7233"}
	for _, tt := range []struct {
		name string
		keys []string
		args []string // the view's Options.Args
		want []string // agentloop's arguments; nil: nothing started
	}{
		{"accept", []string{"n", "a", "y"}, nil, []string{"resume", "g-three", "--accept"}},
		{"abort", []string{"n", "x", "y"}, nil, []string{"resume", "g-three", "--abort"}},
		{"abort declined", []string{"n", "x", "n"}, nil, nil},
		{"stop", []string{"s", "y"}, nil, []string{"stop", "g-one"}},
		{"stop now", []string{"down", "S", "y"}, nil, []string{"stop", "g-two", "--now"}},
		{"guide a running run", []string{"g", "look at main.go", "enter"}, nil, []string{"guide", "g-one", "look at main.go"}},
		{"guidance cancelled", []string{"g", "never", "esc"}, nil, nil},
		{"empty guidance", []string{"g", "enter"}, nil, nil},
		{"stop on temporal", []string{"s", "y"}, temporal, []string{"stop", "g-one", "--engine=temporal", "--temporal-address=127.0.0.1:7233"}},
		{"answer on temporal", []string{"n", "g", "fix it", "enter"}, temporal,
			[]string{"resume", "g-three", "--guidance", "fix it", "--engine=temporal", "--temporal-address=127.0.0.1:7233"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.m.o.Args = tt.args
			h.keys(tt.keys...)
			var got []string
			if len(h.started) > 1 {
				t.Fatalf("started %v, want one command at most", h.started)
			}
			if len(h.started) == 1 {
				got = h.started[0].Args
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("started (-want +got):\n%s", diff)
			}
			if h.quit {
				t.Error("the view quit")
			}
		})
	}
}

// q quits from the list and from an open record, not while typing guidance.
func TestQuit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.keys("g", "q")
	if h.quit {
		t.Fatal("q while typing guidance quit")
	}
	h.keys("esc", "n", "enter", "q")
	if !h.quit {
		t.Fatal("q in an open record did not quit")
	}
}
