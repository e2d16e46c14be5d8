package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/state"
)

func TestHTMLGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := HTML(&b, sampleRun()); err != nil {
		t.Fatal(err)
	}
	golden(t, "html", b.Bytes())
}

func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	for _, r := range []Run{sampleRun(), graphRun()} {
		var b bytes.Buffer
		if err := HTML(&b, r); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"<script", "http://", "https://", "<link", "@import", "src="} {
			if strings.Contains(b.String(), bad) {
				t.Errorf("page of %s contains %q: not self-contained", r.State.Name, bad)
			}
		}
	}
}

// The baseline is iteration 0 of the quality and failing charts and of the
// gate timeline; tokens and cost start at iteration 1.
func TestHTMLRun(t *testing.T) {
	t.Parallel()
	r := sampleRun()
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for chart, want := range map[string]string{"quality": "5", "failing": "5", "tokens": "3", "cost": "4", "duration": "4"} {
		re := regexp.MustCompile(`data-chart="` + chart + `" data-points="(\d+)"`)
		m := re.FindStringSubmatch(page)
		if m == nil || m[1] != want {
			t.Errorf("chart %s: data-points %v, want %s", chart, m, want)
		}
	}
	if !strings.Contains(page, `data-mark="infra"`) {
		t.Error("gate timeline lacks the infra cell of iteration 3")
	}
	for _, want := range []string{
		`data-chart="failing" data-points="5"`, `<circle class="pt" data-attempt="0" data-value="5"`,
		`<span class="sq fail" data-attempt="0"`, "0 is the code before the agent (baseline)",
		"Quality runs from 0 to 1",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"class=\"task state-", "∞", "session(s)", "no iterations yet"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

// A task graph's page: the graph first (each task with a run linked to its
// section), a row per task, each run's section; none of a run's empty panels.
func TestHTMLGraph(t *testing.T) {
	t.Parallel()
	r := graphRun()
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	graph, table := strings.Index(page, `<svg class="graph"`), strings.Index(page, `<table class="tasks`)
	if graph < 0 || table < 0 || graph > table {
		t.Errorf("the graph (at %d) should come before the task table (at %d)", graph, table)
	}
	if got := strings.Count(page, `class="task state-`); got != len(r.Tasks) {
		t.Errorf("graph has %d tasks, want %d", got, len(r.Tasks))
	}
	for _, id := range []string{"task-00", "task-02", "task-06"} {
		for _, want := range []string{`<a href="#task-` + id + `">`, `<section class="taskrun" id="task-` + id + `"`, `<a href="#task-` + id + `" class="mono">`} {
			if !strings.Contains(page, want) {
				t.Errorf("page lacks %q", want)
			}
		}
	}
	if strings.Contains(page, `href="#task-task-01"`) {
		t.Error("a task without a run links to a section")
	}
	for _, want := range []string{`<tr data-task="task-06">`, "stuck: the same 2 tests fail", "2h00m", "No iteration has finished yet.", `id="task-task-06-escalation"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"this attempt", "Elapsed 0s", "no iterations yet", "∞"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

func TestHTMLEscapes(t *testing.T) {
	t.Parallel()
	r := sampleRun()
	r.State.Name = `<img onerror=x>`
	r.State.History[0].Summary = `<script>alert(1)</script>`
	r.Escalation = "# <b>x</b>\n\n| a | <i> |\n|---|---|\n| 1 | `<x>` |\n"
	r.Tasks = []TaskRow{{ID: `"><script>`, Title: "<t>", State: "pending"}}
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<img", "<b>x", "<i>", "<x>", "<t>"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("page contains unescaped %q", bad)
		}
	}
}

func TestHTMLEmpty(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := HTML(&b, Run{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `class="chart"`) || !strings.Contains(b.String(), "No iteration has finished yet.") {
		t.Error("a run without iterations: no chart, one line saying so")
	}
}

func TestHTMLLongRun(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	r := longRun()
	r.Tasks = nil
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`data-chart="quality" data-points="30"`, `data-attempt="30" data-mark`,
		"Tokens and cost per iteration: not reported by the agent CLI."} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{`data-chart="tokens"`, `data-chart="cost"`, "<table class=\"budget"} {
		if strings.Contains(page, bad) {
			t.Errorf("page of a run whose CLI reports no usage contains %q", bad)
		}
	}
	if strings.Contains(page, "$0.00</td>") {
		t.Error("unknown cost shown as $0.00")
	}
}

// A run longer than the table's bound: its last attempts in the table and
// the timeline, said so; every attempt in the charts, a mark for a run of
// them (their mean, their range in the tooltip), at most maxMarks a chart.
func TestHTMLVeryLongRun(t *testing.T) {
	t.Parallel()
	const n = 3*maxIterationRows + 7
	st := &state.State{Version: 1, Name: "long", Status: state.StatusRunning, Iteration: n, TotalIterations: n}
	for i := 1; i <= n; i++ {
		st.History = append(st.History, state.Record{N: i, Quality: float64(i%2) / 2, Duration: state.Millis(1000),
			Gates: []state.GateSummary{{Name: "unit", Required: true, Passed: i%2 == 0}}, Decision: "continue"})
	}
	var b bytes.Buffer
	if err := HTML(&b, Run{State: st}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if rows := strings.Count(page, "<tr data-attempt="); rows != maxIterationRows {
		t.Errorf("%d iteration rows, want %d", rows, maxIterationRows)
	}
	if !strings.Contains(page, fmt.Sprintf("<tr data-attempt=\"%d\" data-segment=\"1\">", n)) || strings.Contains(page, fmt.Sprintf("<tr data-attempt=\"%d\" data-segment=\"1\">", n-maxIterationRows)) {
		t.Error("the table does not hold the last iterations")
	}
	if cells := strings.Count(page, `data-mark=`); cells != maxIterationRows {
		t.Errorf("%d timeline cells, want %d", cells, maxIterationRows)
	}
	for _, want := range []string{fmt.Sprintf("The last %d of %d attempts", maxIterationRows, n),
		fmt.Sprintf(`data-chart="quality" data-points="%d" data-attempts="%d"`, (n+6)/7, n),
		`<title>attempts 1–7: mean 0.29 (0.00 to 0.50)</title>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if marks, charts := strings.Count(page, `<circle class="pt"`), strings.Count(page, `<svg class="chart"`); marks != charts*((n+6)/7) || (n+6)/7 > maxMarks {
		t.Errorf("%d marks in %d charts, want %d a chart, at most %d", marks, charts, (n+6)/7, maxMarks)
	}
	if b.Len() > 2<<20 {
		t.Errorf("the page is %d bytes", b.Len())
	}
}

// A run of three segments: the attempts on the charts' x axis with a line
// where each segment starts, the history with each segment's guidance quoted,
// the attempt cut short, the hand-offs in their place, every escalation
// report listed and the last shown.
func TestHTMLSegments(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := HTML(&b, segmentedRun()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	count := func(s string) int { return strings.Count(page, s) }
	if got := count(`<line class="segline" data-segment="2"`); got != 5 {
		t.Errorf("%d charts mark where segment 2 starts, want 5", got)
	}
	if got := count(`<line class="segline" data-segment="3"`); got != 5 {
		t.Errorf("%d charts mark where segment 3 starts, want 5", got)
	}
	// Quality and failing have no value for the attempt cut short: a mark
	// says so; tokens, cost and duration have its figures.
	if got := count(`<text class="unknown cut"`); got != 2 {
		t.Errorf("%d cut marks, want 2", got)
	}
	if got := count(`<circle class="pt" data-attempt="4"`); got != 3 {
		t.Errorf("the cut attempt has %d points, want 3 (tokens, cost, duration)", got)
	}
	order := []string{
		`<tr class="segment" data-segment="1"><td colspan="10"><strong>Segment 1</strong> · Started by dev@laptop at 2026-03-14 10:00:00Z.`,
		`<tr data-attempt="1" data-segment="1">`, `<tr data-attempt="2" data-segment="1">`,
		`Escalated: the report is <code>.agentloop/runs/build/20260314-100000-c3d4/escalation-001.md</code>.`,
		`<strong>Segment 2</strong> · Guidance from dev@laptop at 2026-03-14 10:19:00Z:<blockquote>first answer: look at the README</blockquote>`,
		`<tr data-attempt="3" data-segment="2">`,
		`<tr class="cut" data-attempt="4"><td colspan="10">Attempt 4 (iteration 2) was cut short after 12.4s: interrupted; what it left is kept in <code>refs/agentloop/build/20260314-100000-c3d4/iter-4-cut</code>; it spent $0.07.`,
		`<tr class="handoff" data-handoff="resume"><td colspan="10">Resumed by dev@laptop at 2026-03-14 10:30:00Z.`,
		`<tr data-attempt="5" data-segment="2">`, `escalation-002.md`,
		`<blockquote>second answer: create fixed.txt<br>and keep the README as it is</blockquote>`,
		`<tr data-attempt="6" data-segment="3">`, `<tr data-attempt="7" data-segment="3">`, `escalation-003.md`,
		`<tr class="handoff" data-handoff="accept"><td colspan="10">Accepted by dev@laptop at 2026-03-14 11:20:00Z; the work tree is at <code>6f1e2d3c4b5a</code>.`,
		`<li>segment 1: <code>.agentloop/runs/build/20260314-100000-c3d4/escalation-001.md</code></li>`,
		`Escalation report (the last: segment 3)`, "What does the agent miss about TestCase0?",
	}
	at := 0
	for _, want := range order {
		i := strings.Index(page[at:], want)
		if i < 0 {
			t.Errorf("page lacks %q after offset %d", want, at)
			continue
		}
		at += i + len(want)
	}
	for _, want := range []string{`<span class="segsep" data-segment="2"`, `<span class="sq cut" data-attempt="4" data-mark="cut"`,
		"iteration 2/2 of segment 3, attempt 7", ">7</div>", "attempt 6 (iteration 1 of segment 3): 0.85"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
