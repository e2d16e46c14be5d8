package report

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/agentloop/agentloop/internal/textcut"
)

// Task graph geometry, in SVG user units.
const (
	nodeW, nodeH = 200.0, 58.0
	gapX, gapY   = 64.0, 18.0
	graphPad     = 16.0
	titleRunes   = 28
)

// taskDepths is each task's layer: 0 for a task without (known) dependencies,
// else one more than its deepest dependency. A cycle is cut where it is found.
func taskDepths(ts []TaskRow) map[string]int {
	byID := make(map[string]TaskRow, len(ts))
	for _, t := range ts {
		byID[t.ID] = t
	}
	depth := make(map[string]int, len(ts))
	visiting := map[string]bool{}
	var visit func(id string) int
	visit = func(id string) int {
		if d, ok := depth[id]; ok {
			return d
		}
		if visiting[id] {
			return -1
		}
		visiting[id] = true
		d := 0
		for _, dep := range byID[id].DependsOn {
			if _, ok := byID[dep]; ok {
				d = max(d, visit(dep)+1)
			}
		}
		visiting[id] = false
		depth[id] = d
		return d
	}
	for _, t := range ts {
		visit(t.ID)
	}
	return depth
}

// taskGraphSVG draws the task graph in layers by dependency depth, left to right,
// each task coloured by its state.
func taskGraphSVG(ts []TaskRow) template.HTML {
	if len(ts) == 0 {
		return ""
	}
	depth := taskDepths(ts)
	type pos struct{ x, y float64 }
	at := make(map[string]pos, len(ts))
	maxDepth, maxRows := 0, 0
	for _, layer := range graphLayers(ts, depth) {
		for row, t := range layer {
			d := depth[t.ID]
			at[t.ID] = pos{graphPad + float64(d)*(nodeW+gapX), graphPad + float64(row)*(nodeH+gapY)}
			maxDepth, maxRows = max(maxDepth, d), max(maxRows, row+1)
		}
	}
	w := 2*graphPad + float64(maxDepth+1)*nodeW + float64(maxDepth)*gapX
	h := 2*graphPad + float64(maxRows)*nodeH + float64(maxRows-1)*gapY
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="graph" data-tasks="%d" viewBox="0 0 %g %g" style="width:100%%;max-width:%gpx;height:auto" role="img" aria-label="task graph">`, len(ts), w, h, w)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#94a3b8"/></marker></defs>`)
	for _, t := range ts {
		to := at[t.ID]
		for _, dep := range t.DependsOn {
			from, ok := at[dep]
			if !ok {
				continue
			}
			x1, y1 := from.x+nodeW, from.y+nodeH/2
			x2, y2 := to.x-2, to.y+nodeH/2
			mid := (x1 + x2) / 2
			fmt.Fprintf(&b, `<path class="edge" data-from="%s" data-to="%s" d="M%g,%g C%g,%g %g,%g %g,%g" marker-end="url(#arrow)"/>`,
				esc(dep), esc(t.ID), x1, y1, mid, y1, mid, y2, x2, y2)
		}
	}
	for _, t := range ts {
		p := at[t.ID]
		if t.Run != nil {
			fmt.Fprintf(&b, `<a href="#task-%s">`, esc(t.ID))
		}
		fmt.Fprintf(&b, `<g class="task state-%s" data-task="%s" data-state="%s" data-depth="%d">`, esc(t.State), esc(t.ID), esc(t.State), depth[t.ID])
		title := t.ID
		if t.Title != "" {
			title += ": " + t.Title
		}
		if t.Reason != "" {
			title += " — " + t.Reason
		}
		fmt.Fprintf(&b, `<title>%s</title>`, esc(title))
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" rx="8"/>`, p.x, p.y, nodeW, nodeH)
		fmt.Fprintf(&b, `<rect class="band" x="%g" y="%g" width="6" height="%g" rx="3"/>`, p.x, p.y, nodeH)
		fmt.Fprintf(&b, `<text class="tid" x="%g" y="%g">%s</text>`, p.x+16, p.y+20, esc(textcut.Runes(t.ID, 20)))
		fmt.Fprintf(&b, `<text class="tstate" x="%g" y="%g">%s</text>`, p.x+nodeW-10, p.y+20, esc(t.State))
		fmt.Fprintf(&b, `<text class="ttitle" x="%g" y="%g">%s</text>`, p.x+16, p.y+42, esc(textcut.Runes(t.Title, titleRunes)))
		b.WriteString(`</g>`)
		if t.Run != nil {
			b.WriteString(`</a>`)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // every text above is escaped
}

// graphLayers groups the tasks by depth; within a layer, tasks are ordered by the
// mean row of their dependencies (fewer crossing edges), ties in file order.
func graphLayers(ts []TaskRow, depth map[string]int) [][]TaskRow {
	var layers [][]TaskRow
	for _, t := range ts {
		d := depth[t.ID]
		for len(layers) <= d {
			layers = append(layers, nil)
		}
		layers[d] = append(layers[d], t)
	}
	row := make(map[string]float64, len(ts))
	for _, layer := range layers {
		key := func(t TaskRow) float64 {
			sum, n := 0.0, 0
			for _, dep := range t.DependsOn {
				if r, ok := row[dep]; ok {
					sum, n = sum+r, n+1
				}
			}
			if n == 0 {
				return math.Inf(1)
			}
			return sum / float64(n)
		}
		keys := make(map[string]float64, len(layer))
		for _, t := range layer {
			keys[t.ID] = key(t)
		}
		sort.SliceStable(layer, func(i, j int) bool { return keys[layer[i].ID] < keys[layer[j].ID] })
		for i, t := range layer {
			row[t.ID] = float64(i)
		}
	}
	return layers
}
