package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestHTMLGolden(t *testing.T) {
	t.Parallel()
	r := sampleRun()
	r.Tasks = sampleTasks()
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "html", b.Bytes())
}

func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	r := sampleRun()
	r.Tasks = sampleTasks()
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "http://", "https://", "<link", "@import", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: not self-contained", bad)
		}
	}
	for chart, want := range map[string]string{"quality": "4", "failing": "4", "tokens": "3", "cost": "4", "duration": "4"} {
		re := regexp.MustCompile(`data-chart="` + chart + `" data-points="(\d+)"`)
		m := re.FindStringSubmatch(page)
		if m == nil || m[1] != want {
			t.Errorf("chart %s: data-points %v, want %s", chart, m, want)
		}
	}
	if got := strings.Count(page, `class="task state-`); got != len(r.Tasks) {
		t.Errorf("graph has %d tasks, want %d", got, len(r.Tasks))
	}
	if !strings.Contains(page, `data-mark="infra"`) {
		t.Error("gate timeline lacks the infra cell of iteration 3")
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
	if !strings.Contains(b.String(), `data-points="0"`) {
		t.Error("empty run: charts should say they have no points")
	}
}

func TestHTMLLongRun(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := HTML(&b, longRun()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`data-chart="quality" data-points="30"`, `data-chart="tokens" data-points="0"`,
		"unknown: not reported by the agent CLI", `data-tasks="14"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "$0.00</td>") {
		t.Error("unknown cost shown as $0.00")
	}
}
