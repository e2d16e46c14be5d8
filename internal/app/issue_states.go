package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/state"
)

// issueStates is what an issue's run reads and writes of its run's state,
// on the engine the run is on: the run's state with its issue record
// ([state.Issue]: its comment, question and pull request), the record
// changed, the phase of the run under way and what its escalation asks.
// On the local engine ([localIssues]) the record is in the run's state, in
// this clone's state folder; on a Temporal fleet ([Fleet]) the run's state
// is read through its workflow, and the record, which only this clone's
// command writes, is kept in this clone's state folder beside it.
type issueStates interface {
	// load is the run's state, its Issue the issue record (nil: a run not
	// an issue's); state.ErrNotFound when there is no run of name.
	load(ctx context.Context, name string) (*state.State, error)
	// begin keeps the issue record of the run name about to start.
	begin(ctx context.Context, name string, rec state.Issue) error
	// record changes the issue record of the run name (seed when it has
	// none yet).
	record(ctx context.Context, name string, seed state.Issue, change func(*state.Issue)) error
	// notIssues says what the run of st, found with no issue record here,
	// is, and what to do: this clone cannot take it as the issue's.
	notIssues(st *state.State) string
	// live is the iteration and phase of the run name under way (ok
	// false: not known here).
	live(name string) (iteration int, phase string, ok bool)
	// needsYou is what the run of st, escalated, asks.
	needsYou(ctx context.Context, st *state.State) decision.NeedsYou
	// goesOn reports whether the run of st goes on without this process
	// (a fleet's workflow), to be followed rather than resumed.
	goesOn(st *state.State) bool
	// reach brings the work of the run of st into the issue's worktree wt
	// of the clone repo, where the branch is committed and pushed from
	// (remote: the remote it is pushed to).
	reach(ctx context.Context, repo, remote, wt string, st *state.State) error
	// handOver makes the commit, the issue's branch in the clone repo as
	// agentloop moved it there (a merge of the pull request's base, the
	// commits a person pushed to it taken), where the continuation of the
	// run of st goes on from: the commit to start it from
	// ([ResumeOptions.From]; "" when the run goes on in the issue's
	// worktree, where the commit is: the local engine), shared on remote
	// when its workers are elsewhere.
	handOver(ctx context.Context, repo, remote string, st *state.State, commit string) (from string, err error)
	// flags are the command-line flags naming the engine, for a command
	// the issue's comments or pull request name ("" for the local engine).
	flags(s Server) string
	// owning are the states of the runs of issues whose pull request is
	// open ([owning]) or whose continuation for it was left unpushed
	// ([continuing]; locally, by a process that is gone: [continuationLeft]),
	// for serve to watch or go on with.
	owning(ctx context.Context) []*state.State
}

// issueEngine is the engine an issue's run of the clone top (its state
// folder root) runs on, and its issueStates: eng's own when it has them (a
// fleet), else eng and the states of the local state folder.
func issueEngine(ctx context.Context, eng IssueEngine, root, top string, out io.Writer) (IssueEngine, issueStates, error) {
	if e, ok := eng.(interface {
		issueEngine(ctx context.Context, root, top string) (IssueEngine, issueStates, error)
	}); ok {
		return e.issueEngine(ctx, root, top)
	}
	return eng, localIssues{store: state.Store{Root: root}, out: out}, nil
}

// localIssues are the states of the issues' runs of the local engine, in
// the state folder: the record is in the run's state, changed under the
// run's lock (no session holds it then).
type localIssues struct {
	store state.Store
	out   io.Writer // where a stale lock recovered is said
}

func (l localIssues) load(_ context.Context, name string) (*state.State, error) {
	st, err := l.store.Load(name)
	if _, gap := errors.AsType[*state.HistoryGapError](err); gap {
		err = nil
	}
	return st, err
}

func (l localIssues) notIssues(st *state.State) string {
	return fmt.Sprintf("a run named %s that is not an issue's is in %s; remove it ('agentloop clean %s') or run the issue from another clone", st.Name, l.store.Root, st.Name)
}

// begin: the run's session keeps the record with the run's first state.
func (localIssues) begin(context.Context, string, state.Issue) error { return nil }

// goesOn: a local run marked running whose command is gone was killed.
func (localIssues) goesOn(*state.State) bool { return false }

func (localIssues) flags(Server) string { return "" }

// handOver: a local run goes on in the issue's worktree, where the merge is.
func (localIssues) handOver(context.Context, string, string, *state.State, string) (string, error) {
	return "", nil
}

// reach: a local run works in the worktree.
func (localIssues) reach(context.Context, string, string, string, *state.State) error { return nil }

func (l localIssues) record(ctx context.Context, name string, seed state.Issue, change func(*state.Issue)) error {
	lock, err := l.store.Lock(name)
	if err != nil {
		return err
	}
	defer lock.Release()
	if rc := lock.Recovered; rc != nil { // a run killed: said as a session says it
		fmt.Fprintf(l.out, "warning: recovered the stale lock of %s: pid %d on %s is gone\n", name, rc.PID, rc.Host)
		if n := len(lock.Orphans); n > 0 {
			fmt.Fprintf(l.out, "warning: ended %d process group(s) the dead run of %s left running (%s) before going on\n", n, name, pgids(lock.Orphans))
		}
	}
	st, err := l.load(ctx, name)
	if err != nil {
		return fmt.Errorf("read the state of %s: %w", name, err)
	}
	if st.Issue == nil {
		st.Issue = &seed
	}
	change(st.Issue)
	if err := l.store.Save(st); err != nil {
		return fmt.Errorf("save the state of %s: %w", name, err)
	}
	return nil
}

func (l localIssues) live(name string) (int, string, bool) {
	ls, err := state.ReadLive(l.store.LivePath(name))
	if err != nil {
		return 0, "", false
	}
	return ls.Iteration, ls.Phase, true
}

func (l localIssues) needsYou(_ context.Context, st *state.State) decision.NeedsYou {
	rec, _, _ := state.NeedsYouNow(readEvents(filepath.Join(l.store.RunDir(st.Name, st.RunID), "events.jsonl")))
	return rec
}

func (l localIssues) owning(context.Context) []*state.State {
	sts, _ := l.store.List() // a state folder not there yet holds none
	var out []*state.State
	for _, st := range sts {
		if owning(st) || continuationLeft(l.store, st) {
			out = append(out, st)
		}
	}
	return out
}

// issueRecordPath is where the state folder root keeps the issue record of
// the run name when its state is not there (a fleet's run: [fleetIssues]).
func issueRecordPath(root, name string) string {
	return filepath.Join(root, "issues", name+".json")
}

// readIssueRecord is the issue record at path; nil when there is none.
func readIssueRecord(path string) (*state.Issue, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var i state.Issue
	if err := json.Unmarshal(b, &i); err != nil {
		return nil, fmt.Errorf("read the issue record %s: %w; remove it to start the issue's record afresh", path, err)
	}
	return &i, nil
}

// prOpen reports whether the issue record rec holds a pull request that is
// open as far as agentloop knows: its run owns it until it is merged or
// closed.
func prOpen(rec *state.Issue) bool { return rec != nil && rec.PR != 0 && rec.Ended == "" }
