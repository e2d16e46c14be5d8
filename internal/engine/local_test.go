package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/state"
)

type fakeGates struct{ calls int }

func (g *fakeGates) RunGates(_ context.Context, _, logDir string, baseline []evidence.GateResult) ([]evidence.GateResult, error) {
	g.calls++
	res := evidence.GateResult{Name: "tests", Required: true, Passed: baseline != nil, LogPath: filepath.Join(logDir, "tests.log")}
	return []evidence.GateResult{res}, nil
}
func (g *fakeGates) Count() int { return 1 }

type fakePrompter struct {
	last   loop.StepRequest
	noTask bool
}

func (p *fakePrompter) HasTask(loop.StepRequest) bool { return !p.noTask }

func (p *fakePrompter) Compose(r loop.StepRequest) (string, error) {
	p.last = r
	return "PROMPT for iteration " + string(rune('0'+r.Iteration)) + "\n" + r.Feedback, nil
}

type fakeReviewer struct{ got loop.ReviewRequest }

func (r *fakeReviewer) Review(_ context.Context, req loop.ReviewRequest) (evidence.Review, error) {
	r.got = req
	return evidence.Review{Verdict: evidence.VerdictApprove, Score: 9}, nil
}

type memStore struct{ saved int }

func (m *memStore) Save(*state.State) error { m.saved++; return nil }

type memEvents struct{ evs []state.Event }

func (m *memEvents) Append(ev state.Event) error { m.evs = append(m.evs, ev); return nil }

// TestLocalIterationArtifacts runs one iteration through the local engine and
// checks what it leaves in the iteration folder and hands the loop.
func TestLocalIterationArtifacts(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	clock := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	agent := &scriptedAgent{results: []evidence.AgentResult{{Agent: "fake", ExitCode: 0, Result: "Fixed Add: it now adds."}}}
	gates, prompter, reviewer, events := &fakeGates{}, &fakePrompter{}, &fakeReviewer{}, &memEvents{}
	l := &Local{
		Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: run, Task: "fix it",
		Agent: agent, Gates: gates, Reviewer: reviewer, Prompt: prompter, Store: &memStore{}, Events: events,
		Screen: &warnings{}, Now: func() time.Time { clock = clock.Add(time.Second); return clock },
		Sleep: func(context.Context, time.Duration) error { return nil },
		Log:   slog.New(slog.NewTextHandler(io.Discard, nil)), TokenBudget: 10,
	}
	res, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepIteration, Iteration: 1, Feedback: "fix TestAdd", Baseline: []evidence.GateResult{{Name: "tests"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Iteration.Gates) != 1 || res.Iteration.Review == nil {
		t.Fatalf("step result: gates %d, review %v", len(res.Iteration.Gates), res.Iteration.Review)
	}
	if !res.Finished.After(res.Started) {
		t.Errorf("finished %v not after started %v", res.Finished, res.Started)
	}
	dir := filepath.Join(run, "iter-001")
	b, err := os.ReadFile(filepath.Join(dir, "prompt.md"))
	if err != nil || !strings.Contains(string(b), "fix TestAdd") {
		t.Errorf("prompt.md = %q, %v", b, err)
	}
	if info, err := os.Stat(filepath.Join(dir, "prompt.md")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("prompt.md mode: %v %v (want 0600: prompts can hold secrets)", info, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "review.json")); err != nil {
		t.Errorf("review.json: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "answer.md")); err != nil || string(b) != "Fixed Add: it now adds." {
		t.Errorf("answer.md (the agent's final answer) = %q, %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "gates")); err != nil || !fi.IsDir() {
		t.Errorf("the gates' log folder: %v, %v", fi, err)
	}
	if reviewer.got.Task != "fix it" || reviewer.got.IterDir != dir {
		t.Errorf("reviewer got %+v", reviewer.got)
	}
	if w := l.Screen.(*warnings); len(w.got) != 1 || !strings.Contains(w.got[0], "token budget") {
		t.Errorf("warnings %q, want one about the token budget", w.got)
	}
	if len(events.evs) != 1 || events.evs[0].Type() != state.EventWarning || events.evs[0].Time.IsZero() {
		t.Errorf("events %+v, want the warning recorded with its time", events.evs)
	}

	// What the loop keeps of the iteration goes to its files; events to events.jsonl.
	doc := &decision.Document{Decision: decision.Body{Action: "retry", Iteration: 1, Strategy: "refine"}}
	if err := l.Keep(t.Context(), state.Artifacts{Iteration: 1, Decision: doc, Feedback: "next time: fix TestSub"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "decision.yaml")); err != nil || !strings.Contains(string(b), "iteration: 1\n") || !strings.Contains(string(b), "strategy: refine") {
		t.Errorf("decision.yaml = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "feedback.md")); err != nil || string(b) != "next time: fix TestSub" {
		t.Errorf("feedback.md = %q, %v", b, err)
	}
	if err := l.Keep(t.Context(), state.Artifacts{Iteration: 9, Feedback: "x"}); err == nil {
		t.Error("Keep into a missing iteration folder: want an error")
	}
	if err := l.Emit(t.Context(), state.Event{Iteration: 1, Data: state.IterationFinished{Action: state.ActionRefine}}); err != nil {
		t.Fatal(err)
	}
	ev := events.evs[len(events.evs)-1]
	if d, ok := ev.Data.(state.IterationFinished); ev.Time.IsZero() || !ok || d.Action != state.ActionRefine {
		t.Errorf("recorded event %+v: want a timestamp and the data", ev)
	}
}

// TestLocalBaselineAndEscalation covers the baseline step and the escalation report.
func TestLocalBaselineAndEscalation(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	gates := &fakeGates{}
	events := &memEvents{}
	l := &Local{Name: "build", RunDir: run, WorkDir: t.TempDir(), Gates: gates, Events: events, Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	res, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepBaseline})
	if err != nil || len(res.Baseline) != 1 || gates.calls != 1 {
		t.Fatalf("baseline: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(run, "baseline")); err != nil {
		t.Errorf("baseline folder: %v", err)
	}
	first := state.Escalation{Reason: "stuck", Question: "Which is right?", Options: []string{"A", "B"}}
	// The report is kept before the state that says the run escalated is
	// saved; the run then waits.
	if err := l.Keep(t.Context(), state.Artifacts{Escalation: &first}); err != nil {
		t.Fatal(err)
	}
	_, err = l.AwaitGuidance(t.Context(), first)
	if err != loop.ErrSuspended {
		t.Fatalf("AwaitGuidance = %v, want ErrSuspended", err)
	}
	b, err := os.ReadFile(filepath.Join(run, "escalation-001.md"))
	if err != nil || !strings.Contains(string(b), "Which is right?") || !strings.Contains(string(b), "2. B") {
		t.Errorf("escalation-001.md = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(run, "escalation-001.yaml")); err != nil {
		t.Errorf("escalation-001.yaml: %v", err)
	}
	// The run waits for a person: its record, with each option's command, is an event.
	if n := len(events.evs); n != 1 {
		t.Fatalf("%d events, want the needs_you", n)
	}
	rec, ok := events.evs[0].Data.(state.NeedsYou)
	if !ok || rec.Kind != decision.NeedsEscalated || rec.Run != "build" || rec.Question != "Which is right?" || len(rec.Options) != 2 ||
		rec.Options[1].Command != `agentloop resume build --guidance "..."` || rec.Report != filepath.Join(run, "escalation-001.md") {
		t.Errorf("needs_you = %+v", events.evs[0].Data)
	}
	// The next segment's escalation has files of its own; the first stays.
	rep := &decision.EscalationReport{Task: "fix it", Reason: "stuck", Question: "Which test is right?", Options: []decision.Option{{Label: "A", TradeOff: "B changes"}}}
	if err := WriteEscalation(run, state.Escalation{Reason: "stuck", Report: rep, Segment: 2}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(run, "escalation-002.md")); err != nil || string(b) != rep.Markdown() {
		t.Errorf("escalation-002.md = %q, %v; want the report's Markdown", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(run, "escalation-002.yaml")); err != nil || !strings.Contains(string(b), "question: Which test is right?") || !strings.Contains(string(b), "trade_off: B changes") {
		t.Errorf("escalation-002.yaml = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(run, "escalation-001.md")); err != nil || !strings.Contains(string(b), "Which is right?") {
		t.Errorf("the first escalation was written over: %q, %v", b, err)
	}
	// The same report again (a step run twice) is left as it is; a second,
	// different escalation of the segment (it was resumed without guidance)
	// has files of its own, and is the one the run's record names.
	if err := WriteEscalation(run, state.Escalation{Reason: "stuck", Report: rep, Segment: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(run, "escalation-002-2.md")); err == nil {
		t.Error("the same report written again made a second file")
	}
	if err := WriteEscalation(run, state.Escalation{Reason: "other", Question: "?", Segment: 2}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(run, "escalation-002-2.md")); err != nil || !strings.Contains(string(b), "other") {
		t.Errorf("escalation-002-2.md = %q, %v; want the second escalation of segment 2", b, err)
	}
	if _, err := os.Stat(filepath.Join(run, "escalation-002-2.yaml")); err != nil {
		t.Errorf("escalation-002-2.yaml: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(run, "escalation-002.md")); err != nil || string(b) != rep.Markdown() {
		t.Errorf("the first escalation of segment 2 was written over: %q, %v", b, err)
	}
	if rec := NeedsYou(state.Escalation{Reason: "other", Segment: 2}, "build", run); rec.Report != filepath.Join(run, "escalation-002-2.md") {
		t.Errorf("needs_you names %s, want the report written last", rec.Report)
	}
	// The segment escalates a third time in the same words, after the person
	// aborted and resumed: a report of its own, told apart by the hand-off
	// it follows; the same escalation written twice is still one file.
	at := time.Date(2026, 11, 27, 12, 50, 18, 0, time.UTC)
	again := state.Escalation{Reason: "other", Question: "?", Segment: 2, Since: &state.Handoff{Kind: state.HandoffResume, At: at}, Handoffs: 6}
	for range 2 {
		if err := WriteEscalation(run, again); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(run, "escalation-002-3.md")); err != nil || !strings.Contains(string(b), "Escalated after the run was resumed at 2026-11-27 12:50:18 UTC, its hand-off 6.") {
		t.Errorf("escalation-002-3.md = %q, %v; want the third escalation of segment 2, after the resume", b, err)
	}
	if _, err := os.Stat(filepath.Join(run, "escalation-002-4.md")); err == nil {
		t.Error("the third escalation written twice made a fourth file")
	}
	if _, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepRollback, Checkpoint: "abc"}); err == nil {
		t.Error("rollback outside git: want an error")
	}
}

// TestIterationWarnsWhenTheAgentHasNoTask: the first iteration of a prompt with
// no task warns; a later one (it carries feedback) does not warn again.
func TestIterationWarnsWhenTheAgentHasNoTask(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	screen := &warnings{}
	l := &Local{
		Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: t.TempDir(),
		Agent: &scriptedAgent{results: []evidence.AgentResult{{Agent: "fake"}, {Agent: "fake"}}}, Prompt: &fakePrompter{noTask: true},
		Store: &memStore{}, Events: &memEvents{}, Screen: screen,
		Now:   func() time.Time { clock = clock.Add(time.Second); return clock },
		Sleep: func(context.Context, time.Duration) error { return nil },
		Log:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	for n := 1; n <= 2; n++ {
		if _, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepIteration, Iteration: n}); err != nil {
			t.Fatal(err)
		}
	}
	if len(screen.got) != 1 || !strings.Contains(screen.got[0], "the agent has no task") || !strings.Contains(screen.got[0], "--context") {
		t.Errorf("warnings %q, want one that the agent has no task", screen.got)
	}
	// No gates, no folder for their logs: a file system entry less an iteration.
	if _, err := os.Lstat(filepath.Join(l.RunDir, "iter-001", "gates")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a run without gates made iter-001/gates (%v)", err)
	}
}

// startWork is a work tree whose every start is a new checkpoint.
type startWork struct{ starts int }

func (w *startWork) Snapshot(context.Context, string, string) (string, string, error) {
	return "end", "tree", nil
}
func (w *startWork) Start(context.Context, string, string) (string, string, error) {
	w.starts++
	return "start-" + string(rune('0'+w.starts)), "tree", nil
}
func (w *startWork) Restore(context.Context, string) error { return nil }
func (w *startWork) RestoreKeeping(context.Context, string, string, string, string) (gitx.Kept, error) {
	return gitx.Kept{}, nil
}
func (w *startWork) Diff(context.Context, string) (evidence.DiffFacts, string, error) {
	return evidence.DiffFacts{}, "", nil
}
func (w *startWork) Diffs(_ context.Context, froms ...string) []gitx.Diffed {
	return make([]gitx.Diffed, len(froms))
}
func (w *startWork) AfterIteration(context.Context, int, string) error { return nil }

// TestStartedBeforeTheAgentRuns: the iteration's start checkpoint is handed to
// Started as soon as it is taken, before the agent runs.
func TestStartedBeforeTheAgentRuns(t *testing.T) {
	t.Parallel()
	agent := &scriptedAgent{results: []evidence.AgentResult{{Agent: "fake"}}}
	var got []string
	l := &Local{
		Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: t.TempDir(),
		Agent: agent, Work: &startWork{}, Prompt: &fakePrompter{}, Store: &memStore{}, Events: &memEvents{},
		Screen: &warnings{}, Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Started: func(_ context.Context, n int, c string) error {
			got = append(got, fmt.Sprintf("%d %s, agent ran %d", n, c, len(agent.ran)))
			return nil
		},
	}
	if _, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepIteration, Iteration: 1}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1 start-1, agent ran 0"}; !slices.Equal(got, want) {
		t.Errorf("Started was told %q, want %q", got, want)
	}
}

// peekGates tells the gate it starts, as the plan's ProcGates does, and reads the live
// status file then.
type peekGates struct {
	live string
	seen state.LiveStatus
}

func (g *peekGates) RunGates(ctx context.Context, _, _ string, _ []evidence.GateResult) ([]evidence.GateResult, error) {
	if started, ok := loop.GateStart(ctx); ok {
		started("tests", 40*time.Second)
	}
	g.seen, _ = state.ReadLive(g.live)
	return []evidence.GateResult{{Name: "tests", Required: true, Passed: true}}, nil
}
func (g *peekGates) Count() int { return 1 }

// TestLiveGate: while a gate runs, the live status names it, since when, and
// how long it usually takes, for watch to tell a hang.
func TestLiveGate(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	gates := &peekGates{live: filepath.Join(t.TempDir(), "build.live.json")}
	l := &Local{
		Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: t.TempDir(), LivePath: gates.live,
		Gates: gates, Store: &memStore{}, Events: &memEvents{},
		Now: func() time.Time { clock = clock.Add(time.Second); return clock },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if _, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepBaseline}); err != nil {
		t.Fatal(err)
	}
	if s := gates.seen; s.Phase != "gates" || s.Gate != "tests" || s.GateUsually != 40*time.Second || s.GateSince.IsZero() {
		t.Errorf("live status while the gate ran: %+v", s)
	}
}

// peekAgent reads its engine's live status as it runs.
type peekAgent struct {
	l    *Local
	seen state.LiveStatus
}

func (a *peekAgent) RunAgent(context.Context, loop.AgentRequest) (evidence.AgentResult, error) {
	a.seen = a.l.Live()
	return evidence.AgentResult{Agent: "fake"}, nil
}

// TestLiveWithoutAFile: an engine with no live file (a worker's) knows all
// the same what its loop is doing: while the agent runs, the iteration and
// the agent phase.
func TestLiveWithoutAFile(t *testing.T) {
	t.Parallel()
	agent := &peekAgent{}
	l := &Local{
		Name: "build", RunID: "r1", WorkDir: t.TempDir(), RunDir: t.TempDir(),
		Agent: agent, Work: &startWork{}, Prompt: &fakePrompter{}, Store: &memStore{}, Events: &memEvents{},
		Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	agent.l = l
	if _, err := l.Step(t.Context(), loop.StepRequest{Kind: loop.StepIteration, Iteration: 3}); err != nil {
		t.Fatal(err)
	}
	if s := agent.seen; s.Iteration != 3 || s.Phase != "agent" {
		t.Errorf("live status while the agent ran: iteration %d, phase %q; want 3, agent", s.Iteration, s.Phase)
	}
}
