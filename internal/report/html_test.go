package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
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
		`data-chart="failing" data-points="5"`, `<circle class="pt" data-iteration="0" data-value="5"`,
		`<span class="sq fail" data-iteration="0"`, "0 is the code before the agent (baseline)",
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
	for _, want := range []string{`data-chart="quality" data-points="30"`, `data-iteration="30" data-mark`,
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
