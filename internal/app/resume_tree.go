package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/state"
)

// ResumeTree applies the resume rule for the work tree to the state st of a
// run about to continue, on either engine, and returns the one line that says
// what the tree holds. A run resumes from the work tree as the person left it:
// nothing they made or changed after the stop is removed or reverted, and a
// cut attempt's partial work (recorded under its cut ref, with its diff) stays
// too; the decider's later rollbacks count from this tree ([state.State.Floor]).
// With undoCut (resume --undo-cut) the loop puts the tree back where the cut
// attempt started, after keeping everything it holds beyond what agentloop
// recorded in a backup ref ([state.State.UndoCut]): the person's edits since
// the stop are then in that backup, with the command that brings them back.
// workDir is the run's work tree, runDir its run folder ("" when it keeps no
// marker of an attempt in progress: the Temporal engine).
func ResumeTree(ctx context.Context, st *state.State, workDir, runDir string, undoCut bool) string {
	st.UndoCut = undoCut
	cut, crashed := 0, false
	if st.Undo != nil {
		cut = st.Undo.Seq
	} else if seq, _, ok := engine.AttemptInProgress(runDir); runDir != "" && ok && seq > st.Attempts {
		cut, crashed = seq, true // the next session recovers it
	}
	since := "since the stop"
	if crashed {
		// What the attempt left and what the person changed since are one
		// tree: the crash took no checkpoint between them.
		since = fmt.Sprintf("since attempt %d started (a crash cut it: its own changes are among them)", cut)
	}
	changed, err := changedSince(ctx, workDir, st.Tree)
	var holds string
	switch {
	case err != nil:
		holds = "continuing from your work tree as it is (what changed since the stop is unknown: " + err.Error() + ")"
	case changed == nil:
		holds = "continuing from your work tree as it is"
	case len(changed) == 0:
		holds = "continuing from your work tree: unchanged " + since
	default:
		holds = fmt.Sprintf("continuing from your work tree: %d %s changed %s (%s)", len(changed), pluralize(len(changed), "file"), since, listed(changed, 5))
		if !undoCut || cut == 0 {
			// The tree as resumed is the floor of later rollbacks.
			st.Floor = max(st.Floor, st.Attempts)
		}
	}
	if cut > 0 && !crashed && !undoCut {
		holds += fmt.Sprintf("; what the cut attempt %d left stays in it", cut)
	}
	switch {
	case undoCut && cut == 0:
		return "--undo-cut: no attempt was cut (the run stopped between attempts), nothing to undo; " + holds
	case undoCut && crashed:
		// The attempt's cut ref, taken as the next session recovers it, is
		// the tree as it is: the person's edits are in it.
		return fmt.Sprintf("--undo-cut: the work tree goes back where attempt %d started; what it holds now, the attempt's changes and yours, is kept in its cut ref first (said below, with the command that brings it back)", cut)
	case undoCut:
		return fmt.Sprintf("--undo-cut: the work tree goes back where attempt %d started; what it holds now is kept in a backup ref first (said below, with the command that brings it back)", cut)
	}
	return holds
}

// changedSince lists what the work tree at dir holds beyond the checkpoint
// since; nil (no error) when there is nothing to compare with: no checkpoint
// recorded, or not a git work tree.
func changedSince(ctx context.Context, dir, since string) ([]string, error) {
	if since == "" || dir == "" {
		return nil, nil
	}
	ws := &gitx.Workspace{Dir: dir}
	if ws.Open(ctx) != nil {
		return nil, nil
	}
	defer ws.Close()
	changed, err := ws.Changed(ctx, since)
	if changed == nil && err == nil {
		changed = []string{}
	}
	return changed, err
}

// listed names the first n of paths, and how many more there are.
func listed(paths []string, n int) string {
	if len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:n], ", ") + fmt.Sprintf(" and %d more", len(paths)-n)
}
