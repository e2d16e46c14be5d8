package engine

import (
	"context"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/state"
)

// Workspace snapshots and restores the work tree (git), and reports what an
// iteration changed. A workspace outside git reports no diff facts.
type Workspace interface {
	Snapshot(ctx context.Context, ref, message string) (commit, tree string, err error)
	// Start returns the checkpoint an iteration starts from: the last one taken
	// or restored, or a new snapshot under ref when there is none yet.
	Start(ctx context.Context, ref, message string) (commit, tree string, err error)
	Restore(ctx context.Context, commit string) error
	// RestoreKeeping restores commit after keeping, under backupRef, whatever
	// the tree holds beyond expect (the checkpoint agentloop last left it at);
	// nothing is restored when that cannot be kept.
	RestoreKeeping(ctx context.Context, commit, expect, backupRef, message string) (gitx.Kept, error)
	// Diff returns the facts and the unified diff from a snapshot to the current tree.
	Diff(ctx context.Context, from string) (evidence.DiffFacts, string, error)
	// Diffs is Diff from each of froms, from one git process where it can.
	Diffs(ctx context.Context, froms ...string) []gitx.Diffed
	// AfterIteration commits or pushes as configured; errors are warnings.
	AfterIteration(ctx context.Context, iteration int, message string) error
}

// Store persists the run state.
type Store interface {
	Save(st *state.State) error
}

// EventLog records events.
type EventLog interface {
	Append(ev state.Event) error
}

// Screen is what a person sees (the ui package's Printer).
type Screen interface {
	Event(ev state.Event)
	Phase(phase string)
}
