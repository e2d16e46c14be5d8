package app

import (
	"context"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/notify"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/session"
	"github.com/agentloop/agentloop/internal/temporal"
	"github.com/agentloop/agentloop/internal/ui"
)

// Fleet is a command's connection to a Temporal server, for the runs and
// graphs of one repository on it.
type Fleet struct {
	dial func(context.Context) (client.Client, error)
	c    client.Client // nil until connected
	s    temporal.Server
	repo string // the identity of the repository ([temporal.KnownRepoID]); "" when none
	sh   Shell
}

// Shell is what the command line gives the application: its process, and
// how a run is shown and notified.
type Shell struct {
	session.Process
	Getenv func(string) string
	// Screen is the printer a run of p is shown on (the flags p recorded, and
	// those given now).
	Screen func(p *plan.Plan) (*ui.Printer, error)
	// Notifying is the notifier of the receivers p configures (nil: none),
	// and done, which waits for the deliveries under way once the run is
	// followed no more.
	Notifying func(ctx context.Context, p *plan.Plan) (n *notify.Notifier, done func(), err error)
}

// New is the fleet of the server s, which dial connects to when first
// needed, for the repository of identity repo ([temporal.KnownRepoID]; ""
// for none).
func New(dial func(context.Context) (client.Client, error), s temporal.Server, repo string, sh Shell) *Fleet {
	return &Fleet{dial: dial, s: s, repo: repo, sh: sh}
}

// connect connects to the server, once.
func (f *Fleet) connect(ctx context.Context) error {
	if f.c != nil {
		return nil
	}
	c, err := f.dial(ctx)
	if err != nil {
		return err
	}
	f.c = c
	return nil
}

// Close closes the connection, if there is one.
func (f *Fleet) Close() {
	if f.c != nil {
		f.c.Close()
	}
}

// Address is the server's address.
func (f *Fleet) Address() string { return f.s.Address }

// find is the run name of this repository on the server (or of no
// repository: a graph's task), and its key ([temporal.Scoped]).
func (f *Fleet) find(ctx context.Context, name string) (temporal.View, string, error) {
	if err := f.connect(ctx); err != nil {
		return temporal.View{}, "", err
	}
	return temporal.Find(ctx, f.c, name, f.repo)
}
