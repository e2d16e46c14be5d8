package temporal

import (
	"context"
	"maps"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/metrics"
	"github.com/agentloop/agentloop/internal/state"
)

// Metrics are a worker's metrics in a [metrics.Registry]: the SDK's, under
// the names and tags the SDK gives them (temporal_workflow_completed,
// temporal_activity_execution_latency, …; its timers as histograms in
// seconds), through [Metrics.SDK] set as the client's metrics handler, and
// agentloop's own:
//
//   - agentloop_iterations_total: the iterations this worker ran to their end
//     (an attempt cut by the loss of its worker is not one; an iteration run
//     again after its result was lost counts again);
//   - agentloop_spend_usd_total and agentloop_tokens_total{kind}: what those
//     iterations' agents and reviewers used, as they reported it;
//   - agentloop_agents_running: the steps holding a place on this worker now
//     (an agent's iteration, or a baseline's gates, at work), at most its
//     --max-agents; agentloop_steps_waiting: those waiting for a place;
//   - agentloop_checkpoint_pushes_total{result}: the pushes of checkpoint
//     refs to the shared remote (result ok or failed), and
//     agentloop_checkpoint_shares_total: the runs' asks they carried (a
//     worker's runs take turns, so one push carries many asks);
//   - agentloop_runs_waiting{namespace}: the runs of the namespace waiting for
//     a person (the inbox's count, read from the server's list when scraped:
//     every worker of the namespace gives the same count).
type Metrics struct {
	reg *metrics.Registry

	iterations metrics.Counter
	spend      metrics.Counter
	running    metrics.Gauge
	waiting    metrics.Gauge
}

// NewMetrics registers a worker's metrics in reg.
func NewMetrics(reg *metrics.Registry) *Metrics {
	return &Metrics{
		reg:        reg,
		iterations: reg.Counter("agentloop_iterations_total", "Iterations this worker ran to their end.", nil),
		spend:      reg.Counter("agentloop_spend_usd_total", "Cost in US dollars the agents and reviewers of this worker's iterations reported.", nil),
		running:    reg.Gauge("agentloop_agents_running", "Steps (an agent's iteration, a baseline's gates) running on this worker.", nil),
		waiting:    reg.Gauge("agentloop_steps_waiting", "Steps waiting on this worker for a place under --max-agents.", nil),
	}
}

// SDK is the client's metrics handler writing the SDK's metrics to the
// registry; nil for a nil m (the SDK's default: none).
func (m *Metrics) SDK() client.MetricsHandler {
	if m == nil {
		return nil
	}
	return sdkHandler{reg: m.reg}
}

// waitingFor counts a step waiting for a place until the returned func is
// called.
func (m *Metrics) waitingFor() (done func()) {
	if m == nil {
		return func() {}
	}
	m.waiting.Add(1)
	return func() { m.waiting.Add(-1) }
}

// run counts a step running until the returned func is called.
func (m *Metrics) run() (done func()) {
	if m == nil {
		return func() {}
	}
	m.running.Add(1)
	return func() { m.running.Add(-1) }
}

// stepDone counts an iteration step that came to its end, and its spend.
func (m *Metrics) stepDone(kind loop.StepKind, res state.StepResult, err error) {
	if m == nil || err != nil || kind != loop.StepIteration {
		return
	}
	m.iterations.Add(1)
	u := res.Iteration.Spend()
	if u.CostKnown {
		m.spend.Add(u.CostUSD)
	}
	if u.TokensKnown {
		for kind, n := range map[string]int64{"input": u.InputTokens, "output": u.OutputTokens, "cache_read": u.CacheReadTokens, "cache_write": u.CacheWriteTokens} {
			m.reg.Counter("agentloop_tokens_total", "Tokens the agents and reviewers of this worker's iterations reported, by kind.", metrics.Labels{"kind": kind}).Add(float64(n))
		}
	}
}

// pushed counts a push of checkpoint refs carrying asks runs' asks.
func (m *Metrics) pushed(asks int, err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "failed"
	}
	m.reg.Counter("agentloop_checkpoint_pushes_total", "Pushes of checkpoint refs to the shared remote, by result.", metrics.Labels{"result": result}).Add(1)
	m.reg.Counter("agentloop_checkpoint_shares_total", "Runs' asks for their checkpoints to be pushed, carried by those pushes.", nil).Add(float64(asks))
}

// WatchWaiting adds agentloop_runs_waiting: the runs of the namespace c
// reaches waiting for a person, read from the server's list when the
// registry is written, at most once per [WaitingEvery]; a list that fails
// leaves the gauge out.
func (m *Metrics) WatchWaiting(c client.Client, namespace string) {
	var mu sync.Mutex
	var last time.Time
	var n float64
	var ok bool
	m.reg.GaugeFunc("agentloop_runs_waiting", "Runs of the namespace waiting for a person (read from the server).", metrics.Labels{"namespace": namespace},
		func(ctx context.Context) (float64, bool) {
			mu.Lock()
			defer mu.Unlock()
			if time.Since(last) < WaitingEvery {
				return n, ok
			}
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			count, err := countWaiting(ctx, c)
			last, n, ok = time.Now(), float64(count), err == nil
			return n, ok
		})
}

// WaitingEvery is how often agentloop_runs_waiting lists the namespace's
// runs at most; a scrape in between gets the last count.
const WaitingEvery = 10 * time.Second

// countWaiting counts the runs whose memo says they wait for a person (a run
// of a build that kept no memo is not counted: asking it needs a query).
func countWaiting(ctx context.Context, c client.Client) (int, error) {
	runs, err := listRuns(ctx, c)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range runs {
		if _, waiting, _ := memoWaiting(r.info.GetMemo()); waiting {
			n++
		}
	}
	return n, nil
}

// sdkHandler is the SDK's metrics handler over a registry: a counter is a
// counter, a gauge a gauge, a timer a histogram of seconds; the tags are
// labels.
type sdkHandler struct {
	reg  *metrics.Registry
	tags metrics.Labels
}

func (h sdkHandler) WithTags(tags map[string]string) client.MetricsHandler {
	t := maps.Clone(h.tags)
	if t == nil {
		t = metrics.Labels{}
	}
	maps.Copy(t, tags)
	return sdkHandler{reg: h.reg, tags: t}
}

func (h sdkHandler) Counter(name string) client.MetricsCounter {
	c := h.reg.Counter(name, "", h.tags)
	return sdkCounter(func(n int64) { c.Add(float64(n)) })
}

func (h sdkHandler) Gauge(name string) client.MetricsGauge {
	g := h.reg.Gauge(name, "", h.tags)
	return sdkGauge(g.Set)
}

func (h sdkHandler) Timer(name string) client.MetricsTimer {
	t := h.reg.Histogram(name, "", h.tags)
	return sdkTimer(func(d time.Duration) { t.Observe(d.Seconds()) })
}

type (
	sdkCounter func(int64)
	sdkGauge   func(float64)
	sdkTimer   func(time.Duration)
)

func (f sdkCounter) Inc(n int64)          { f(n) }
func (f sdkGauge) Update(v float64)       { f(v) }
func (f sdkTimer) Record(d time.Duration) { f(d) }
