package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// point is one attempt's value in a chart; Known false draws no point.
type point struct {
	N       int // the attempt's run-wide number: its x label
	From    int // a mark for a run of attempts (see [maxMarks]): its first; 0 otherwise
	Segment int // the segment it belongs to: a dashed line where it changes
	Name    string
	Value   float64
	Known   bool
	Cut     bool   // an attempt cut short: marked as such when it has no value
	Label   string // the value as people read it
	Best    bool   // the run's best checkpoint: ringed
}

// maxMarks is the most marks a chart draws. Past that many attempts each
// mark stands for a run of consecutive ones: their mean, with the lowest and
// highest in its tooltip. The plot is 490 units wide, so more marks would only
// overlap, and a 10,000-attempt run's page stays small and quick to write.
const maxMarks = 500

// marks returns the chart's points, one a run of attempts past maxMarks. A
// run's segment is that of its last attempt, so a segment's line falls before
// the run its first attempt is in.
func (c chart) marks() []point {
	n := len(c.Pts)
	if n <= maxMarks {
		return c.Pts
	}
	k := (n + maxMarks - 1) / maxMarks
	out := make([]point, 0, (n+k-1)/k)
	for i := 0; i < n; i += k {
		run := c.Pts[i:min(i+k, n)]
		last := run[len(run)-1]
		m := point{From: run[0].N, N: last.N, Segment: last.Segment, Name: fmt.Sprintf("attempts %d–%d", run[0].N, last.N)}
		lo, hi, sum, known := math.Inf(1), math.Inf(-1), 0.0, 0
		for _, p := range run {
			m.Best = m.Best || p.Best
			m.Cut = m.Cut || p.Cut
			if p.Known {
				lo, hi, sum, known = math.Min(lo, p.Value), math.Max(hi, p.Value), sum+p.Value, known+1
			}
		}
		if known > 0 {
			m.Known, m.Value = true, sum/float64(known)
			m.Label = fmt.Sprintf("mean %s (%s to %s)", c.Fmt(m.Value), c.Fmt(lo), c.Fmt(hi))
		}
		out = append(out, m)
	}
	return out
}

// chart describes one per-attempt chart.
type chart struct {
	ID    string // data-chart attribute
	Title string
	Note  string  // what the values mean, under the chart
	Kind  string  // "line" or "bar"
	Max   float64 // fixed top of the y axis; 0: from the data
	Color string
	Fmt   func(float64) string // y-axis labels
	Int   bool                 // whole numbers: ticks fall on integers
	Pts   []point
}

// Chart geometry, in SVG user units.
const (
	chartW, chartH            = 560.0, 210.0
	padL, padR, padT, padB    = 56.0, 14.0, 14.0, 30.0
	plotW, plotH              = chartW - padL - padR, chartH - padT - padB
	chartTicks                = 4
	barFraction               = 0.56
	pointRadius, pointRadius2 = 4.0, 3.0
)

// svg renders the chart as inline SVG with data attributes a test (or a script)
// can read: data-points counts the known marks; each is a circle.pt with
// data-value. A chart of more than [maxMarks] iterations says how many in
// data-iterations.
func (c chart) SVG() template.HTML {
	all := len(c.Pts)
	c.Pts = c.marks()
	known, most := 0, 0.0
	for _, p := range c.Pts {
		if p.Known {
			known++
			most = math.Max(most, p.Value)
		}
	}
	top, ticks := c.Max, chartTicks
	if top <= 0 {
		top, ticks = axis(most, c.Int)
	}
	var b strings.Builder
	runs := ""
	if all > len(c.Pts) {
		runs = fmt.Sprintf(` data-attempts="%d"`, all)
	}
	fmt.Fprintf(&b, `<svg class="chart" data-chart="%s" data-points="%d"%s viewBox="0 0 %g %g" role="img" aria-label="%s">`,
		esc(c.ID), known, runs, chartW, chartH, esc(c.Title))
	for i := 0; i <= ticks; i++ {
		v := top * float64(i) / float64(ticks)
		y := padT + plotH - plotH*float64(i)/float64(ticks)
		fmt.Fprintf(&b, `<line class="grid" x1="%g" y1="%.1f" x2="%g" y2="%.1f"/>`, padL, y, chartW-padR, y)
		if known > 0 {
			fmt.Fprintf(&b, `<text class="ylab" x="%g" y="%.1f">%s</text>`, padL-8, y+4, esc(c.Fmt(v)))
		}
	}
	n := len(c.Pts)
	step := plotW / float64(max(n, 1))
	xOf := func(i int) float64 { return padL + step*(float64(i)+0.5) }
	yOf := func(v float64) float64 { return padT + plotH - plotH*math.Min(v, top)/top }
	// Every label on a wide screen up to 16 iterations; on a phone (where
	// the labels are drawn larger, see the style sheet) at most 8, counted
	// back from the last, and the others get the class narrow-hidden.
	labelEvery, phoneEvery := max(1, n/16), max(1, (n+7)/8)
	c.segments(&b, xOf)
	for i, p := range c.Pts {
		if i%labelEvery == 0 || i == n-1 {
			class := "xlab"
			if (n-1-i)%phoneEvery != 0 {
				class += " narrow-hidden"
			}
			fmt.Fprintf(&b, `<text class="%s" x="%.1f" y="%g">%d</text>`, class, xOf(i), chartH-10, p.N)
		}
	}
	if c.Kind == "bar" {
		w := step * barFraction
		for i, p := range c.Pts {
			if !p.Known {
				continue
			}
			y := yOf(p.Value)
			fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="3" fill="%s"/>`,
				xOf(i)-w/2, y, w, padT+plotH-y, c.Color)
		}
	} else {
		var line []string
		for i, p := range c.Pts {
			if p.Known {
				line = append(line, fmt.Sprintf("%.1f,%.1f", xOf(i), yOf(p.Value)))
			}
		}
		if len(line) > 1 {
			first, last := strings.Split(line[0], ","), strings.Split(line[len(line)-1], ",")
			fmt.Fprintf(&b, `<polygon class="area" fill="%s" points="%s,%g %s %s,%g"/>`,
				c.Color, first[0], padT+plotH, strings.Join(line, " "), last[0], padT+plotH)
			fmt.Fprintf(&b, `<polyline class="line" stroke="%s" points="%s"/>`, c.Color, strings.Join(line, " "))
		}
	}
	r := pointRadius
	if c.Kind == "bar" {
		r = pointRadius2
	}
	for i, p := range c.Pts {
		if !p.Known && known == 0 {
			continue
		}
		if !p.Known {
			mark, class := "?", "unknown"
			if p.Cut {
				mark, class = "×", "unknown cut"
			}
			fmt.Fprintf(&b, `<text class="%s" x="%.1f" y="%g">%s<title>%s</title></text>`, class, xOf(i), padT+plotH-6, mark, esc(p.Name))
			continue
		}
		fmt.Fprintf(&b, `<circle class="pt" data-attempt="%d" data-value="%s" cx="%.1f" cy="%.1f" r="%g" stroke="%s"><title>%s: %s</title></circle>`,
			p.N, strFloat(p.Value), xOf(i), yOf(p.Value), r, c.Color, esc(p.Name), esc(p.Label))
	}
	for i, p := range c.Pts {
		if p.Best && p.Known {
			fmt.Fprintf(&b, `<circle class="best" cx="%.1f" cy="%.1f" r="9" stroke="%s"/><text class="bestlab" x="%.1f" y="%.1f">best</text>`,
				xOf(i), yOf(p.Value), c.Color, xOf(i), yOf(p.Value)-14)
		}
	}
	if known == 0 {
		fmt.Fprintf(&b, `<text class="empty" x="%g" y="%g">%s</text>`, padL+plotW/2, padT+plotH/2, emptyText(n))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // every text above is escaped
}

// segments draws a dashed line where a segment starts (between the last
// attempt of one and the first of the next), labelled with the segment's
// number where there is room for it.
func (c chart) segments(b *strings.Builder, xOf func(int) float64) {
	lastLabel := math.Inf(-1)
	for i := 1; i < len(c.Pts); i++ {
		seg := c.Pts[i].Segment
		if seg == 0 || c.Pts[i-1].Segment == 0 || seg == c.Pts[i-1].Segment {
			continue
		}
		x := (xOf(i-1) + xOf(i)) / 2
		fmt.Fprintf(b, `<line class="segline" data-segment="%d" x1="%.1f" y1="%g" x2="%.1f" y2="%g"><title>segment %d starts</title></line>`,
			seg, x, padT, x, padT+plotH, seg)
		if x-lastLabel < segLabelRoom {
			continue
		}
		lastLabel = x
		anchor, lx := "start", x+3
		if x > chartW-padR-segLabelRoom {
			anchor, lx = "end", x-3
		}
		fmt.Fprintf(b, `<text class="seglab" x="%.1f" y="%g" text-anchor="%s">S%d</text>`, lx, padT+10, anchor, seg)
	}
}

// segLabelRoom is the room a segment's label needs, in SVG units.
const segLabelRoom = 30.0

func emptyText(n int) string {
	if n == 0 {
		return "no iterations yet"
	}
	return "unknown: not reported by the agent CLI"
}

// axis fits a chart's y axis to its largest value: the smallest step of 1, 2,
// 2.5 or 5 times a power of ten (a whole number for counts) that reaches the
// value in at most chartTicks+1 steps. It returns the axis's top and its number
// of steps: a largest value of 9 gets 0, 2, … 10, not 0, 3, … 12.
func axis(most float64, whole bool) (top float64, ticks int) {
	if most <= 0 || math.IsNaN(most) || math.IsInf(most, 0) {
		return 1, 1
	}
	for p := math.Pow(10, math.Floor(math.Log10(most/(chartTicks+1)))); ; p *= 10 {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := m * p
			if whole && (step < 1 || step != math.Trunc(step)) {
				continue
			}
			if n := math.Ceil(most/step - 1e-9); n <= chartTicks+1 {
				return step * n, int(n)
			}
		}
	}
}

func strFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", v), "0"), ".")
}

func esc(s string) string { return template.HTMLEscapeString(s) }
