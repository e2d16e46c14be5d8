//go:build temporal

package cli

import (
	"context"

	"github.com/agentloop/agentloop/internal/ledger"
	"github.com/agentloop/agentloop/internal/temporal"
)

// spendTemporal is the ledger workflow's book under caps (`agentloop spend
// --engine temporal`), and where it is, for people.
func spendTemporal(ctx context.Context, o engineOptions, d Deps, caps []ledger.Cap) (ledger.Report, string, error) {
	c, s, err := dialTemporal(ctx, d, o, loopOptions{})
	if err != nil {
		return ledger.Report{}, "", err
	}
	defer c.Close()
	r, err := temporal.LedgerClient{C: c, Queue: s.TaskQueue}.Report(ctx, caps, d.Now())
	return r, ledgerWhere(s), err
}

// approveTemporal approves the soft limit of each cap in the ledger workflow
// (`agentloop budget approve --engine temporal`): the runs it parked are
// woken. It returns each cap's period.
func approveTemporal(ctx context.Context, o engineOptions, d Deps, caps []ledger.Cap, by string) ([]string, error) {
	c, s, err := dialTemporal(ctx, d, o, loopOptions{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	lc := temporal.LedgerClient{C: c, Queue: s.TaskQueue}
	var periods []string
	for _, cp := range caps {
		p, err := lc.Approve(ctx, cp, by)
		if err != nil {
			return periods, err
		}
		periods = append(periods, p)
	}
	return periods, nil
}

func ledgerWhere(s temporal.Server) string {
	return "the workflow " + temporal.LedgerWorkflowID + " on Temporal (" + s.Address + ", namespace " + s.Namespace + "; periods in UTC)"
}
