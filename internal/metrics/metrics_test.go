package metrics_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentloop/agentloop/internal/metrics"
)

func Example() {
	reg := metrics.NewRegistry()
	reg.Counter("agentloop_iterations_total", "Iterations run.", nil).Add(1)
	reg.Gauge("agentloop_agents_running", "Agents running.", metrics.Labels{"queue": "q"}).Set(2)
	_ = reg.Write(context.Background(), os.Stdout)
	// Output:
	// # HELP agentloop_agents_running Agents running.
	// # TYPE agentloop_agents_running gauge
	// agentloop_agents_running{queue="q"} 2
	// # HELP agentloop_iterations_total Iterations run.
	// # TYPE agentloop_iterations_total counter
	// agentloop_iterations_total 1
}

// TestWriteParsesBack: what the registry writes, parsed back by a reader of
// the text format's rules (TYPE before a family's samples, each family's
// samples together, valid names, quoted and escaped label values, cumulative
// buckets ending at +Inf equal to the count), gives back every value set.
func TestWriteParsesBack(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	reg.Counter("temporal_workflow_completed", "", metrics.Labels{"namespace": "default", "workflow_type": "agentloop-run"}).Add(3)
	reg.Counter("temporal_workflow_completed", "", metrics.Labels{"namespace": "default", "workflow_type": "agentloop-graph"}).Add(1)
	reg.Counter("temporal_workflow_completed", "", metrics.Labels{"namespace": "default", "workflow_type": "agentloop-run"}).Add(2)
	reg.Counter("down", "", nil).Add(-4) // ignored: a counter never goes down
	g := reg.Gauge("temporal.sticky-cache size", "a help\\text\nover two lines", metrics.Labels{"task-queue": "a \"quoted\"\\ name\nnext"})
	g.Set(7)
	g.Add(-2)
	h := reg.Histogram("temporal_activity_execution_latency", "", metrics.Labels{"activity_type": "agentloop-step"})
	for _, v := range []float64{0.0005, 0.001, 0.3, 42, 5000} {
		h.Observe(v)
	}
	reg.Gauge("temporal_workflow_completed", "", nil).Set(9) // another kind: not written
	reg.GaugeFunc("agentloop_runs_waiting", "Runs waiting.", metrics.Labels{"namespace": "default"}, func(context.Context) (float64, bool) { return 4, true })
	reg.GaugeFunc("agentloop_unknown", "Left out.", nil, func(context.Context) (float64, bool) { return 0, false })

	got, _ := written(t, reg)
	want := map[string]float64{
		`temporal_workflow_completed{namespace="default",workflow_type="agentloop-graph"}`: 1,
		`temporal_workflow_completed{namespace="default",workflow_type="agentloop-run"}`:   5,
		`down`: 0,
		"temporal_sticky_cache_size{task_queue=\"a \\\"quoted\\\"\\\\ name\\nnext\"}":           5,
		`temporal_activity_execution_latency_bucket{activity_type="agentloop-step",le="0.001"}`: 2,
		`temporal_activity_execution_latency_bucket{activity_type="agentloop-step",le="0.25"}`:  2,
		`temporal_activity_execution_latency_bucket{activity_type="agentloop-step",le="0.5"}`:   3,
		`temporal_activity_execution_latency_bucket{activity_type="agentloop-step",le="60"}`:    4,
		`temporal_activity_execution_latency_bucket{activity_type="agentloop-step",le="3600"}`:  4,
		`temporal_activity_execution_latency_bucket{activity_type="agentloop-step",le="+Inf"}`:  5,
		`temporal_activity_execution_latency_count{activity_type="agentloop-step"}`:             5,
		`temporal_activity_execution_latency_sum{activity_type="agentloop-step"}`:               0.0005 + 0.001 + 0.3 + 42 + 5000,
		`agentloop_runs_waiting{namespace="default"}`:                                           4,
	}
	for k, v := range want {
		if got.Values[k] != v {
			t.Errorf("%s = %v, want %v", k, got.Values[k], v)
		}
	}
	if n := got.Sum("temporal_workflow_completed", metrics.Labels{"namespace": "default"}); n != 6 {
		t.Errorf("sum of temporal_workflow_completed = %v, want 6", n)
	}
	if _, ok := got.Values["agentloop_unknown"]; ok || got.Types["agentloop_unknown"] != "" {
		t.Error("a gauge func that returned false was written")
	}
	wantTypes := map[string]string{
		"temporal_workflow_completed": "counter", "down": "counter", "temporal_sticky_cache_size": "gauge",
		"temporal_activity_execution_latency": "histogram", "agentloop_runs_waiting": "gauge",
	}
	if diff := cmp.Diff(wantTypes, got.Types); diff != "" {
		t.Errorf("families (-want +got):\n%s", diff)
	}
	if h := got.Help["temporal_sticky_cache_size"]; h != "a help\\text\nover two lines" {
		t.Errorf("help read back %q", h)
	}
	if v := got.Labels[`temporal_sticky_cache_size{task_queue="a \"quoted\"\\ name\nnext"}`]; v["task_queue"] != "a \"quoted\"\\ name\nnext" {
		t.Errorf("label value read back %q", v)
	}
}

// written is what reg writes, and that text parsed.
func written(t *testing.T, reg *metrics.Registry) (metrics.Scrape, string) {
	t.Helper()
	var b strings.Builder
	if err := reg.Write(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	got, err := metrics.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, b.String())
	}
	return got, b.String()
}

// TestParseRefuses: text a scraper would refuse does not parse.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"no type":        "a 1\n",
		"bad name":       "# TYPE 1a gauge\n1a 1\n",
		"no value":       "# TYPE a gauge\na\n",
		"bad value":      "# TYPE a gauge\na one\n",
		"unquoted label": "# TYPE a gauge\na{l=b} 1\n",
		"bad escape":     "# TYPE a gauge\na{l=\"\\t\"} 1\n",
		"unterminated":   "# TYPE a gauge\na{l=\"b} 1\n",
		"twice":          "# TYPE a gauge\na 1\na 2\n",
		"apart":          "# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\na{l=\"x\"} 1\n",
		"second type":    "# TYPE a gauge\n# TYPE a counter\na 1\n",
		"buckets down":   "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",
		"bounds down":    "# TYPE h histogram\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\n",
		"count not +Inf": "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 3\n",
	} {
		if _, err := metrics.Parse(strings.NewReader(text)); err == nil {
			t.Errorf("%s: %q parsed", name, text)
		}
	}
}

// TestServe: a scrape of /metrics gets the registry in the text format.
func TestServe(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	reg.Counter("agentloop_iterations_total", "", nil).Add(2)
	addr, err := metrics.Serve(t.Context(), "127.0.0.1:0", reg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != metrics.ContentType {
		t.Errorf("content type %q", ct)
	}
	got, err := metrics.Parse(bytes.NewReader(body))
	if err != nil || got.Values["agentloop_iterations_total"] != 2 {
		t.Errorf("scraped (%v):\n%s", err, body)
	}
}

// FuzzLabelValue: any label value is written so that it reads back the same
// (as valid UTF-8).
func FuzzLabelValue(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b`, `a\b`, "a\nb", `\n`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		reg := metrics.NewRegistry()
		reg.Gauge("g", v, metrics.Labels{"l": v}).Set(1)
		got, text := written(t, reg)
		want := strings.ToValidUTF8(v, "\uFFFD")
		for _, l := range got.Labels {
			if l["l"] != want {
				t.Errorf("label value %q read back %q", want, l["l"])
			}
		}
		if len(got.Labels) != 1 {
			t.Errorf("%d series, want 1:\n%s", len(got.Labels), text)
		}
	})
}
