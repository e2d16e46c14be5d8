package metrics

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Labels are a series' labels, name to value.
type Labels map[string]string

// The kinds of a family, as its TYPE line says.
const (
	kindCounter   = "counter"
	kindGauge     = "gauge"
	kindHistogram = "histogram"
)

// Registry holds the metric families of a process. Its methods are safe for
// concurrent use. A metric is asked for by name, help and labels each time it
// is used or once and kept: the same name and labels are the same series.
type Registry struct {
	mu       sync.Mutex
	families map[string]*family
	buckets  []float64
}

// DefaultBuckets are a histogram's upper bounds, in seconds: from a
// millisecond (a workflow task) to an hour (an agent's iteration).
var DefaultBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}

// NewRegistry is an empty registry whose histograms have [DefaultBuckets].
func NewRegistry() *Registry {
	return &Registry{families: map[string]*family{}, buckets: DefaultBuckets}
}

// family is the series of one metric name.
type family struct {
	name, help, kind string
	series           map[string]*series // by their rendered labels
	funcs            []gaugeFunc
}

// gaugeFunc is a gauge read when the registry is written.
type gaugeFunc struct {
	labels string
	read   func(context.Context) (float64, bool)
}

// series is one series' value.
type series struct {
	mu     sync.Mutex
	labels string    // rendered: {a="b",c="d"}, or ""
	value  float64   // a counter's or a gauge's
	counts []uint64  // a histogram's, per bucket (not cumulative)
	bounds []float64 // a histogram's upper bounds
	sum    float64
	count  uint64
}

// Counter is a value that only goes up.
type Counter struct{ s *series }

// Add adds v to the counter; a negative v is ignored (a counter never goes
// down).
func (c Counter) Add(v float64) {
	if v > 0 {
		c.s.add(v)
	}
}

// Gauge is a value that goes up and down.
type Gauge struct{ s *series }

// Set sets the gauge to v.
func (g Gauge) Set(v float64) {
	g.s.mu.Lock()
	g.s.value = v
	g.s.mu.Unlock()
}

// Add adds v (negative: takes away) to the gauge.
func (g Gauge) Add(v float64) { g.s.add(v) }

func (s *series) add(v float64) {
	s.mu.Lock()
	s.value += v
	s.mu.Unlock()
}

// Histogram counts observations in buckets, with their sum and count.
type Histogram struct{ s *series }

// Observe records one observation.
func (h Histogram) Observe(v float64) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	h.s.sum += v
	h.s.count++
	if i, _ := slices.BinarySearch(h.s.bounds, v); i < len(h.s.bounds) {
		h.s.counts[i]++
	}
}

// Counter is the counter name with the labels, made the first time.
func (r *Registry) Counter(name, help string, l Labels) Counter {
	return Counter{r.series(name, help, kindCounter, l)}
}

// Gauge is the gauge name with the labels, made the first time.
func (r *Registry) Gauge(name, help string, l Labels) Gauge {
	return Gauge{r.series(name, help, kindGauge, l)}
}

// Histogram is the histogram name with the labels, made the first time.
func (r *Registry) Histogram(name, help string, l Labels) Histogram {
	return Histogram{r.series(name, help, kindHistogram, l)}
}

// GaugeFunc adds a gauge whose value read returns each time the registry is
// written (given the writer's context); a read that returns false leaves the
// gauge out of that writing.
func (r *Registry) GaugeFunc(name, help string, l Labels, read func(context.Context) (float64, bool)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f := r.family(name, help, kindGauge); f != nil {
		f.funcs = append(f.funcs, gaugeFunc{labels: renderLabels(l), read: read})
	}
}

// series finds or makes a series. A name already used by a metric of another
// kind keeps its first kind: the series asked for then is one that is not
// written (the caller's updates are lost, the output stays valid).
func (r *Registry) series(name, help, kind string, l Labels) *series {
	labels := renderLabels(l)
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.family(name, help, kind)
	if f == nil {
		return r.newSeries(kind, labels)
	}
	s, ok := f.series[labels]
	if !ok {
		s = r.newSeries(kind, labels)
		f.series[labels] = s
	}
	return s
}

func (r *Registry) newSeries(kind, labels string) *series {
	s := &series{labels: labels}
	if kind == kindHistogram {
		s.bounds = r.buckets
		s.counts = make([]uint64, len(r.buckets))
	}
	return s
}

// family finds or makes the family name of the kind; nil when the name has
// another kind. The caller holds r.mu.
func (r *Registry) family(name, help, kind string) *family {
	name = sanitize(name, true)
	f, ok := r.families[name]
	if !ok {
		f = &family{name: name, help: help, kind: kind, series: map[string]*series{}}
		r.families[name] = f
	}
	if f.kind != kind {
		return nil
	}
	if f.help == "" {
		f.help = help
	}
	return f
}

// renderLabels is the labels as the text format writes them, sorted by name:
// {a="b",c="d"}; "" for none.
func renderLabels(l Labels) string {
	if len(l) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(l)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(sanitize(k, false))
		b.WriteString(`="`)
		b.WriteString(escape(l[k], true))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// sanitize makes name a valid metric name (colons allowed) or label name:
// each character the format does not allow becomes an underscore, and a
// leading digit gets one before it.
func sanitize(name string, metric bool) string {
	if name == "" {
		return "_"
	}
	b := []byte(name)
	for i, c := range b {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || metric && c == ':'
		if !ok {
			b[i] = '_'
		}
	}
	if b[0] >= '0' && b[0] <= '9' {
		return "_" + string(b)
	}
	return string(b)
}

// escape escapes a label value (backslash, double quote, newline) or a HELP
// text (backslash, newline).
func escape(s string, quote bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '"' && quote:
			b.WriteString(`\"`)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
