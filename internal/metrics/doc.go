// Package metrics owns a process's metrics as a scraper reads them: a
// [Registry] of counters, gauges and histograms, each a family of series told
// apart by their labels, written in the Prometheus text exposition format
// (version 0.0.4) that Prometheus, the OpenTelemetry collector and every
// agent scraping /metrics read ([Registry.Write], [Registry.ServeHTTP],
// [Serve]).
//
// It is the standard library only, on purpose: the worker's metrics are the
// Temporal SDK's (through an adapter of the SDK's metrics handler, in
// internal/temporal) and agentloop's own, a few dozen series updated a few
// times per step; the SDK's tally reporter would add uber-go/tally and
// prometheus/client_golang (and their dependencies) for what is here a few
// hundred lines.
package metrics
