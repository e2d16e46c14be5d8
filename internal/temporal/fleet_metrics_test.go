//go:build temporal && unix

package temporal_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/metrics"
	"github.com/agentloop/agentloop/internal/temporal"
)

// TestWorkerMetrics: a worker started with --metrics-addr serves, at
// /metrics in the Prometheus text format, the SDK's metrics of the runs it
// ran (their workflows completed, their steps' latencies) and agentloop's
// own: the iterations it ran and what their agent reported spending, the
// agents running now (none), and the runs of the namespace waiting for a
// person (one, escalated).
func TestWorkerMetrics(t *testing.T) {
	f := newFleet(t)
	f.files = map[string]string{"agentloop.yaml": `agents:
  fakeclaude: {preset: claude, cmd: [fakeagent]}
procedures:
  build:
    agent: fakeclaude
  stuck:
    agent: fakeclaude
    gates: [{name: fixed, run: "test -f fixed.txt"}]
    limits: {max_iterations: 2, failure_threshold: 5}
`}
	work := f.repo("work")[0]
	f.plan(`[*]
print {"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done","session_id":"s","total_cost_usd":0.25,"usage":{"input_tokens":100,"output_tokens":50}}
`)
	w := f.start(work, "worker", "--metrics-addr", "127.0.0.1:0")
	url := f.waitOutput(w, regexp.MustCompile(`Metrics at (http://\S+)`))
	if code, out := f.run(work, "run", "build", "--engine", "temporal", "--max-iterations", "2"); code != 0 {
		t.Fatalf("run build exited %d, want 0:\n%s", code, out)
	}
	if code, out := f.run(work, "run", "stuck", "--engine", "temporal"); code != 4 {
		t.Fatalf("run stuck exited %d, want 4 (escalated):\n%s", code, out)
	}
	var got metrics.Scrape
	deadline := time.Now().Add(30 * time.Second)
	for {
		got = scrape(t, url)
		// The workflow's completion is counted as its last task completes,
		// which the follower may see first.
		if got.Sum("temporal_workflow_completed", metrics.Labels{"workflow_type": temporal.WorkflowRun}) >= 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // a count kept by another process: nothing to wait on
	}
	run := metrics.Labels{"workflow_type": temporal.WorkflowRun, "namespace": "default", "task_queue": "agentloop-test"}
	for _, c := range []struct {
		name   string
		labels metrics.Labels
		want   func(float64) bool
		what   string
	}{
		{"temporal_workflow_completed", run, func(v float64) bool { return v == 1 }, "1 (build)"},
		{"temporal_activity_execution_latency_count", metrics.Labels{"activity_type": temporal.ActivityStep}, func(v float64) bool { return v >= 4 }, ">= 4 (the iterations' steps)"},
		{"temporal_workflow_task_execution_latency_count", nil, func(v float64) bool { return v >= 2 }, ">= 2"},
		{"agentloop_iterations_total", nil, func(v float64) bool { return v == 4 }, "4 (2 of build, 2 of stuck)"},
		{"agentloop_spend_usd_total", nil, func(v float64) bool { return v == 1 }, "1 (4 × 0.25)"},
		{"agentloop_tokens_total", metrics.Labels{"kind": "input"}, func(v float64) bool { return v == 400 }, "400 (4 × 100)"},
		{"agentloop_agents_running", nil, func(v float64) bool { return v == 0 }, "0"},
		{"agentloop_runs_waiting", metrics.Labels{"namespace": "default"}, func(v float64) bool { return v == 1 }, "1 (stuck)"},
	} {
		if v := got.Sum(c.name, c.labels); !c.want(v) {
			t.Errorf("%s%v = %v, want %s", c.name, c.labels, v, c.what)
		}
	}
	if t.Failed() {
		for k, v := range got.Values {
			if strings.HasPrefix(k, "agentloop_") || strings.HasPrefix(k, "temporal_workflow_completed") {
				t.Logf("%s %v", k, v)
			}
		}
	}
}

// scrape gets the worker's metrics and parses them strictly.
func scrape(t *testing.T, url string) metrics.Scrape {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := metrics.Parse(resp.Body)
	if err != nil {
		t.Fatalf("the worker's metrics do not parse: %v", err)
	}
	return got
}

// waitOutput waits until the process's output matches re and returns the
// first group.
func (f *fleet) waitOutput(p *proc, re *regexp.Regexp) string {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := re.FindStringSubmatch(p.out.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("no %s in the output of agentloop %v:\n%s", re, p.args, p.out.String())
		}
		time.Sleep(50 * time.Millisecond) // output of another process: nothing to wait on
	}
}
