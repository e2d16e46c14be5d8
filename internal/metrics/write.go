package metrics

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ContentType is the media type of the text format [Registry.Write] writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Write writes every family in the text exposition format, the families by
// name and their series by labels; a [Registry.GaugeFunc] is read with ctx.
func (r *Registry) Write(ctx context.Context, w io.Writer) error {
	type snap struct {
		name, help, kind string
		series           []*series
		funcs            []gaugeFunc
	}
	r.mu.Lock()
	fams := make([]snap, 0, len(r.families))
	for _, f := range r.families {
		s := snap{name: f.name, help: f.help, kind: f.kind, funcs: slices.Clone(f.funcs)}
		for _, se := range f.series {
			s.series = append(s.series, se)
		}
		fams = append(fams, s)
	}
	r.mu.Unlock()
	slices.SortFunc(fams, func(a, b snap) int { return strings.Compare(a.name, b.name) })
	bw := bufio.NewWriter(w)
	for _, f := range fams {
		var lines []string
		for _, s := range f.series {
			lines = append(lines, s.lines(f.name)...)
		}
		for _, g := range f.funcs {
			if v, ok := g.read(ctx); ok {
				lines = append(lines, f.name+g.labels+" "+formatFloat(v))
			}
		}
		if len(lines) == 0 {
			continue
		}
		if f.kind != kindHistogram {
			slices.Sort(lines) // a histogram's are in bucket order already, series by series
		}
		if f.help != "" {
			fmt.Fprintf(bw, "# HELP %s %s\n", f.name, escape(f.help, false))
		}
		fmt.Fprintf(bw, "# TYPE %s %s\n", f.name, f.kind)
		for _, l := range lines {
			bw.WriteString(l)
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// lines are the series' sample lines.
func (s *series) lines(name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bounds == nil {
		return []string{name + s.labels + " " + formatFloat(s.value)}
	}
	lines := make([]string, 0, len(s.bounds)+3)
	var cum uint64
	for i, b := range s.bounds {
		cum += s.counts[i]
		lines = append(lines, name+"_bucket"+withLabel(s.labels, "le", formatFloat(b))+" "+strconv.FormatUint(cum, 10))
	}
	return append(lines,
		name+"_bucket"+withLabel(s.labels, "le", "+Inf")+" "+strconv.FormatUint(s.count, 10),
		name+"_sum"+s.labels+" "+formatFloat(s.sum),
		name+"_count"+s.labels+" "+strconv.FormatUint(s.count, 10))
}

// withLabel adds the label name="value" to rendered labels.
func withLabel(labels, name, value string) string {
	l := name + `="` + value + `"`
	if labels == "" {
		return "{" + l + "}"
	}
	return labels[:len(labels)-1] + "," + l + "}"
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ServeHTTP writes the registry, as a scraper asks for it at /metrics.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", ContentType)
	_ = r.Write(req.Context(), w) // the scraper went away
}

// Serve serves the registry at /metrics on addr (host:port; port 0 for any)
// until ctx is done, and returns the address it listens on.
func Serve(ctx context.Context, addr string, r *Registry) (net.Addr, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for metrics scrapes on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", r)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	return ln.Addr(), nil
}
