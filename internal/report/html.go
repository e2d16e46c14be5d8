package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

//go:embed report.html.tmpl
var pageTemplate string

// page is one run as the HTML template renders it: the whole page of a run's
// report, or one task's section of a task graph's page.
type page struct {
	S          *state.State
	Anchor     string // prefix of the ids in the page: "" for a run, "task-ID-" in a graph's page
	Nested     bool   // a task's section in a graph's page: its headings one level down
	Status     string
	Cards      []card
	Charts     []chart
	Unreported string // the line that stands for the charts of what the agent CLI did not report
	Quality    string // what a quality score is
	Gates      []string
	Timeline   []timelineRow
	History    template.HTML // the history table: every attempt and hand-off, by segment
	Segments   int
	// AttemptsAll is how many attempts the run has: past maxIterationRows,
	// the history table and the timeline show the last Shown ones.
	AttemptsAll, Shown int
	Budget             []budgetRow
	Wall               string
	Waited             string
	Sessions           []state.Session
	Escalation         template.HTML
	// OutsideTask are the failures the last iteration found outside the
	// task (see outsideTask).
	OutsideTask []string
	// Escalations are the run's escalation reports when there are several
	// (Escalation shows the last); EscalationOf names its segment.
	Escalations  []escalationLink
	EscalationOf int
	Events       []eventRow
	EventsAll    int
}

// graphPage is a task graph as the HTML template renders it: the graph, a row
// per task, and each task's run in a section of its own.
type graphPage struct {
	Name, Status, File, Reason string
	Cards                      []card
	Graph                      template.HTML
	Rows                       []graphRow
	Runs                       []taskRun
}

// graphRow is one task in the graph page's table.
type graphRow struct {
	TaskRow
	Duration, Cost, Anchor string // Anchor: the id of the task's section, "" when it has none
}

// taskRun is a task's section in the graph page.
type taskRun struct {
	ID, Title, Anchor string
	Page              page
}

type card struct{ Label, Value, Note string }

type timelineRow struct {
	Gate  string
	Cells []timelineCell
}

type timelineCell struct {
	N       int
	Segment int    // the first cell of a segment after the first: its number
	Mark    string // pass, fail, infra, none, cut
	Title   string
}

type escalationLink struct {
	Segment int
	Path    string
}

type budgetRow struct{ Name, Tokens, In, Out, Cost string }

// HTML writes the report as one self-contained HTML page: inline CSS and
// inline SVG charts, no script and nothing fetched from the network. A task
// graph (a run with Tasks) gets the graph's page: the graph, a row per task
// and each task's run report, linked from both.
func HTML(w io.Writer, r Run) error {
	tmpl, err := template.New("report").Funcs(template.FuncMap{
		"stamp": stamp, "join": strings.Join, "orDash": func(s string) string { return cmp.Or(s, dash) }, "verdict": verdictText, "cost": costText,
		"statusClass": statusClass, "inc": func(i int) int { return i + 1 },
		"heading": heading, "escalationOf": escalationOf,
	}).Parse(pageTemplate)
	if err != nil {
		return fmt.Errorf("parse the report template: %w", err)
	}
	name, data := "run", any(buildPage(r))
	if len(r.Tasks) > 0 {
		name, data = "graph", buildGraphPage(r)
	}
	if err := tmpl.ExecuteTemplate(w, name, data); err != nil {
		return fmt.Errorf("write the HTML report: %w", err)
	}
	return nil
}

// escalationOf says which segment's escalation report a page shows, when
// the run has several.
func escalationOf(segment int) string {
	if segment == 0 {
		return ""
	}
	return fmt.Sprintf(" (the last: segment %d)", segment)
}

// heading is a section heading of a page: h2 in a run's page, h3 in a task's
// section of a graph's page.
func heading(p page, id, text string) template.HTML {
	tag := "h2"
	if p.Nested {
		tag = "h3"
	}
	attr := ""
	if id != "" {
		attr = fmt.Sprintf(` id="%s"`, esc(p.Anchor+id))
	}
	return template.HTML(fmt.Sprintf("<%s%s>%s</%s>", tag, attr, esc(text), tag)) //nolint:gosec // escaped
}

// maxIterationRows is the most iterations the table and the gate timeline
// show, the last ones; the charts show every iteration, the Markdown and JSON
// reports every one too. A 10,000-iteration run's page stays a few MB at most
// and quick to write.
const maxIterationRows = 1000

func buildPage(r Run) page {
	s := r.state()
	total := s.Spend.Total()
	h := historyOf(r)
	p := page{S: s, Status: cmp.Or(string(s.Status), dash), Sessions: s.Sessions,
		Wall: duration(s.Spend.Wall.Duration()), Gates: gateNames(s.History), Quality: decide.QualityMeaning, Segments: len(h.segments)}
	if s.Spend.Waited > 0 {
		p.Waited = duration(s.Spend.Waited.Duration())
	}
	p.OutsideTask = outsideTask(s)
	p.Cards = runCards(s, h, total)
	p.Charts = charts(s, h)
	if len(s.History) > 0 {
		p.Unreported = unreportedText(s.History)
	}
	p.Timeline = timeline(s, h, p.Gates)
	p.History, p.Shown = historyHTML(s, h)
	p.AttemptsAll = h.recorded + h.cut
	if total.TokensKnown || total.CostKnown {
		p.Budget = []budgetRow{budgetOf("agent", s.Spend.Usage)}
		if used(s.Spend.Reviewer) {
			p.Budget = append(p.Budget, budgetOf("reviewer", s.Spend.Reviewer), budgetOf("total", total))
		}
	}
	p.Events, p.EventsAll = eventRows(r.Events), max(r.EventsAll, len(r.Events))
	if esc := strings.TrimSpace(r.Escalation); esc != "" {
		p.Escalation = markdownHTML(esc)
	}
	if n := len(r.Escalations); n > 1 {
		for _, e := range r.Escalations {
			p.Escalations = append(p.Escalations, escalationLink{Segment: max(e.Segment, 1), Path: filepath.ToSlash(e.Path)})
		}
		p.EscalationOf = r.Escalations[n-1].Segment
	}
	return p
}

// used reports whether a usage holds anything (a reviewer that ran).
func used(u evidence.Usage) bool {
	return u.TokensKnown || u.CostKnown || u.TotalTokens() > 0 || u.CostUSD > 0
}

// runCards are the figures at the top of a run's report.
func runCards(s *state.State, h history, total evidence.Usage) []card {
	best := "—"
	if q, ok := bestQuality(s.History); ok {
		best = fmt.Sprintf("%.2f", q)
	}
	failing := "—"
	if n := len(s.History); n > 0 {
		failing = fmt.Sprint(len(s.History[n-1].Failing))
	}
	sessions := ""
	if n := len(s.Sessions); n > 1 {
		sessions = fmt.Sprintf("over %d sessions", n)
	}
	att := "iteration " + statePosition(s)
	if h.cut > 0 {
		att = fmt.Sprintf("%d recorded, %d cut short; %s", h.recorded, h.cut, att)
	}
	cards := []card{{"Attempts", fmt.Sprint(h.attempts), att}}
	if h.many() {
		cards = append(cards, card{"Segments", fmt.Sprint(len(h.segments)), "a new one with each guidance"})
	}
	cards = append(cards, card{"Elapsed", duration(elapsed(s, reportNow(s))), sessions})
	if !total.TokensKnown && !total.CostKnown {
		cards = append(cards, card{"Tokens and cost", "unknown", "not reported by the agent CLI"})
	} else {
		cards = append(cards, card{"Tokens", tokensText(total), "agent + reviewer"}, card{"Cost", costText(total), "agent + reviewer"})
	}
	return append(cards,
		card{"Best quality", best, "0 to 1, see the quality chart"},
		card{"Failing now", failing, "tests and findings"})
}

// buildGraphPage is a task graph's page: r.State holds the graph's totals,
// r.Tasks its tasks, each with its run when it has one.
func buildGraphPage(r Run) graphPage {
	s := r.state()
	g := graphPage{Name: s.Name, Status: cmp.Or(string(s.Status), dash), File: strings.TrimPrefix(s.Procedure, "task graph "),
		Graph: taskGraphSVG(r.Tasks)}
	f := graphFactsOf(r.Tasks)
	for i, t := range r.Tasks {
		row := graphRow{TaskRow: t, Duration: f.durations[i], Cost: f.costs[i]}
		if t.Run != nil && t.Run.State != nil {
			row.Anchor = "task-" + t.ID
			g.Runs = append(g.Runs, taskRun{ID: t.ID, Title: t.Title, Anchor: row.Anchor, Page: taskPage(*t.Run, row.Anchor+"-")})
		}
		g.Rows = append(g.Rows, row)
	}
	g.Cards = []card{
		{"Tasks", fmt.Sprint(len(r.Tasks)), f.states},
		{"Iterations", fmt.Sprint(s.TotalIterations), "every task's together"},
		{"Task time", duration(f.span), "each task's elapsed time, added up"},
		{"Cost", costText(f.total), "every task's agent + reviewer"},
	}
	return g
}

// graphFacts are what a task graph's reports say of its tasks together and of
// each: how many are in each state, their spend, their elapsed time.
type graphFacts struct {
	states           string         // "4 succeeded, 1 escalated, …"
	total            evidence.Usage // every task's spend
	span             time.Duration  // every task's elapsed time, added up
	durations, costs []string       // each task's, "—" for a task that has not run
}

func graphFactsOf(ts []TaskRow) graphFacts {
	var f graphFacts
	counts := map[string]int{}
	for _, t := range ts {
		counts[t.State]++
		f.total = f.total.Add(t.Usage)
		dur, cost := "—", "—"
		if t.Run != nil || t.Iterations > 0 {
			cost = costText(t.Usage)
		}
		if t.Run != nil && t.Run.State != nil {
			if d := elapsed(t.Run.State, reportNow(t.Run.State)); d > 0 {
				f.span += d
				dur = duration(d)
			}
		}
		f.durations, f.costs = append(f.durations, dur), append(f.costs, cost)
	}
	var parts []string
	for _, st := range []string{"succeeded", "completed", "running", "escalated", "failed", "aborted", "interrupted", "blocked", "skipped", "pending"} {
		if n := counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	f.states = strings.Join(parts, ", ")
	return f
}

// taskPage is a task's run, as a section of the graph's page.
func taskPage(r Run, anchor string) page {
	p := buildPage(r)
	p.Anchor, p.Nested = anchor, true
	return p
}
