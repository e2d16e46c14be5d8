package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/agentloop/agentloop/internal/loop"
)

//go:embed report.html.tmpl
var pageTemplate string

// page is what the HTML template renders.
type page struct {
	S          *loop.State
	Status     string
	Cards      []card
	Charts     []chart
	Gates      []string
	Timeline   []timelineRow
	Iterations []iterRow
	Budget     []budgetRow
	Wall       string
	Waited     string
	Sessions   []loop.Session
	Graph      template.HTML
	Tasks      []TaskRow
	Escalation template.HTML
	Events     []eventRow
	EventsAll  int
}

type card struct{ Label, Value, Note string }

type timelineRow struct {
	Gate  string
	Cells []timelineCell
}

type timelineCell struct {
	N     int
	Mark  string // pass, fail, infra, none
	Title string
}

type iterRow struct {
	loop.Record
	Dur, Cost, Gates string
}

type budgetRow struct{ Name, Tokens, In, Out, Cost string }

// HTML writes the run report as one self-contained HTML page: inline CSS and
// inline SVG charts, no script and nothing fetched from the network.
func HTML(w io.Writer, r Run) error {
	tmpl, err := template.New("report").Funcs(template.FuncMap{
		"stamp": stamp, "join": strings.Join, "orDash": orDash, "verdict": verdictText, "cost": costText,
		"statusClass": statusClass, "inc": func(i int) int { return i + 1 },
	}).Parse(pageTemplate)
	if err != nil {
		return fmt.Errorf("parse the report template: %w", err)
	}
	if err := tmpl.Execute(w, buildPage(r)); err != nil {
		return fmt.Errorf("write the HTML report: %w", err)
	}
	return nil
}

func buildPage(r Run) page {
	s := r.state()
	total := totalUsage(s.Spend)
	p := page{S: s, Status: orDash(string(s.Status)), Sessions: s.Sessions, Tasks: r.Tasks,
		Wall: duration(s.Spend.Wall.Duration()), Gates: gateNames(s.History)}
	if s.Spend.Waited > 0 {
		p.Waited = duration(s.Spend.Waited.Duration())
	}
	best := "—"
	if q, ok := bestQuality(s.History); ok {
		best = fmt.Sprintf("%.2f", q)
	}
	failing := "—"
	if n := len(s.History); n > 0 {
		failing = fmt.Sprint(len(s.History[n-1].Failing))
	}
	p.Cards = []card{
		{"Iterations", fmt.Sprint(s.TotalIterations), "this attempt " + iterLimit(s.Iteration, s.MaxIterations)},
		{"Elapsed", duration(elapsed(s, reportNow(s))), fmt.Sprintf("%d session(s)", len(s.Sessions))},
		{"Tokens", tokensText(total), "agent + reviewer"},
		{"Cost", costText(total), "agent + reviewer"},
		{"Best quality", best, "score 0–1"},
		{"Failing now", failing, "tests and findings"},
	}
	p.Charts = charts(s.History, s.Best)
	p.Timeline = timeline(s.History, p.Gates)
	for _, rec := range s.History {
		p.Iterations = append(p.Iterations, iterRow{Record: rec, Dur: duration(rec.Duration.Duration()),
			Cost: costText(rec.Usage), Gates: gatesText(rec.Gates)})
	}
	p.Budget = []budgetRow{budget("agent", s.Spend.Usage), budget("reviewer", s.Spend.Reviewer), budget("total", total)}
	p.Graph = taskGraphSVG(r.Tasks)
	p.Events, p.EventsAll = eventRows(r.Events), len(r.Events)
	if esc := strings.TrimSpace(r.Escalation); esc != "" {
		p.Escalation = markdownHTML(esc)
	}
	return p
}
