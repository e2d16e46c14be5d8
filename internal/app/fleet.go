//go:build temporal

package app

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/temporal"
)

var _ Engine = (*Fleet)(nil)

// Fleet is a command's connection to a Temporal server, for the runs and
// graphs of one repository on it.
type Fleet struct {
	dial func(context.Context) (client.Client, error)
	c    client.Client // nil until connected
	s    temporal.Server
	repo string // the identity of the repository ([temporal.KnownRepoID]); "" when none
	sh   Shell
	// heartbeat is the heartbeat timeout of the runs and graphs started here
	// (0: the engine's default).
	heartbeat time.Duration
	// reading makes the reads of watch ([Fleet.Look]) take turns on the one
	// connection, and Close wait for the one under way.
	reading *sync.Mutex
}

// NewFleet is the fleet of the server s, which dial connects to when first
// needed, for the repository of identity repo ([temporal.KnownRepoID]; ""
// for none); the runs and graphs it starts have the heartbeat timeout
// heartbeat (0: the engine's default).
func NewFleet(dial func(context.Context) (client.Client, error), s temporal.Server, repo string, heartbeat time.Duration, sh Shell) *Fleet {
	return &Fleet{dial: dial, s: s, repo: repo, sh: sh, heartbeat: heartbeat, reading: &sync.Mutex{}}
}

// placed are the settings o of a run or graph started here, with the
// fleet's heartbeat timeout.
func (f *Fleet) placed(o Server) Server {
	o.Heartbeat = f.heartbeat
	return o
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
	f.reading.Lock()
	defer f.reading.Unlock()
	if f.c != nil {
		f.c.Close()
	}
}

// Address is the server's address.
func (f *Fleet) Address() string { return f.s.Address }

// Where names the server, for a person.
func (f *Fleet) Where() string { return "the Temporal server at " + f.s.Address }

// find is the run name of this repository on the server (or of no
// repository: a graph's task), and its key ([temporal.Scoped]).
func (f *Fleet) find(ctx context.Context, name string) (temporal.View, string, error) {
	if err := f.connect(ctx); err != nil {
		return temporal.View{}, "", err
	}
	return temporal.Find(ctx, f.c, name, f.repo)
}
