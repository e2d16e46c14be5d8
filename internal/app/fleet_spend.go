//go:build temporal

package app

import (
	"context"
	"fmt"

	"github.com/agentloop/agentloop/internal/temporal"
)

// Spend is the ledger workflow's book under b's caps (`agentloop spend
// --engine temporal`), and where it is, for people.
func (f *Fleet) Spend(ctx context.Context, b Budgets) (Book, error) {
	if err := f.connect(ctx); err != nil {
		return Book{}, err
	}
	r, err := temporal.LedgerClient{C: f.c, Queue: f.s.TaskQueue}.Report(ctx, b.Caps, f.sh.Now())
	if err != nil {
		return Book{}, err
	}
	bk := Book{Report: r, Where: "the workflow " + temporal.LedgerWorkflowID + " on Temporal (" + f.s.Address + ", namespace " + f.s.Namespace + "; periods in UTC)"}
	switch {
	case !b.On:
		bk.NotKept = LedgerOff
	case !b.Given:
		bk.NotKept = "(not kept by the Temporal engine's runs: no budgets: section in your configuration; add one, even budgets: {}, to keep it)"
	}
	return bk, nil
}

// Approve approves the soft limit of each cap of b named in the ledger workflow
// (`agentloop budget approve --engine temporal`): the runs it parked are
// woken.
func (f *Fleet) Approve(ctx context.Context, b Budgets, caps []string) error {
	if err := f.connect(ctx); err != nil {
		return err
	}
	lc := temporal.LedgerClient{C: f.c, Queue: f.s.TaskQueue}
	for _, name := range caps {
		cp, _ := b.Cap(name)
		p, err := lc.Approve(ctx, cp, f.user())
		if err != nil {
			return err
		}
		fmt.Fprintf(f.sh.Stdout, "Approved cap %s past its soft limit for %s on Temporal: the runs it parked go on now, up to its hard limit.\n", cp.Name, p)
	}
	return nil
}
