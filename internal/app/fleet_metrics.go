//go:build temporal

package app

import (
	"context"
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/metrics"
	"github.com/agentloop/agentloop/internal/temporal"
)

// ServeMetrics serves a worker's metrics at addr until ctx ends, saying
// where on w; nil when addr is "".
func ServeMetrics(ctx context.Context, w io.Writer, addr string) (*temporal.Metrics, error) {
	if addr == "" {
		return nil, nil
	}
	reg := metrics.NewRegistry()
	at, err := metrics.Serve(ctx, addr, reg)
	if err != nil {
		return nil, fmt.Errorf("%w; give --metrics-addr a free HOST:PORT", err)
	}
	fmt.Fprintf(w, "Metrics at http://%s/metrics\n", at)
	return temporal.NewMetrics(reg), nil
}
