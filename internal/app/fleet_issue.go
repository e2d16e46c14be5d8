//go:build temporal

package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/engine"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/temporal"
)

// issueEngine is the fleet an issue's run of the clone top, whose state
// folder is root, runs on, with the identity of that clone
// ([temporal.RepoID]) made now when no run of it was started yet, for its
// runs to be found by name from the first; and their states ([fleetIssues]).
func (f *Fleet) issueEngine(ctx context.Context, root, top string) (IssueEngine, issueStates, error) {
	id, err := temporal.RepoID(root, top)
	if err != nil {
		return nil, nil, err
	}
	if err := f.connect(ctx); err != nil {
		return nil, nil, err
	}
	at := *f // the same connection, closed by f
	at.repo = id
	return &at, fleetIssues{f: &at, root: root, lives: &lives{}}, nil
}

// fleetIssues are the states of the issues' runs on a fleet: the run's
// state read through its workflow's query, a run that waits for an answer
// escalated; its issue record kept in the state folder of the clone the
// issue is run from (issues/NAME.json), beside the issue's worktree and
// branch. Only that clone's command writes the record (the workflow's state
// is the loop's, which no client writes), and the forge's markers find
// again what a lost record knew of the comments ([issueRun.claim],
// [issueRun.postOnce]).
type fleetIssues struct {
	f     *Fleet
	root  string
	lives *lives
}

// lives are what the runs' steps under way were doing when their states
// were last read ([temporal.View.Live], read with the state in the same
// calls to the server), by run name.
type lives struct {
	mu sync.Mutex
	by map[string]state.LiveStatus
}

func (l *lives) set(name string, ls state.LiveStatus) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]state.LiveStatus{}
	}
	l.by[name] = ls
}

func (l *lives) get(name string) state.LiveStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.by[name]
}

func (l fleetIssues) path(name string) string { return issueRecordPath(l.root, name) }

// read is the issue record of the run name; nil when there is none.
func (l fleetIssues) read(name string) (*state.Issue, error) { return readIssueRecord(l.path(name)) }

func (l fleetIssues) write(name string, i *state.Issue) error {
	b, err := json.MarshalIndent(i, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(l.path(name)), 0o755); err != nil {
		return err
	}
	return state.WriteFileAtomic(l.path(name), append(b, '\n'), 0o644)
}

func (l fleetIssues) view(ctx context.Context, name string) (temporal.View, error) {
	v, _, err := l.f.find(ctx, name)
	if errors.Is(err, temporal.ErrNoRun) {
		return v, fmt.Errorf("%w: %w", state.ErrNotFound, err)
	}
	return v, err
}

// load: a run of the name that ended, of which this clone keeps no issue
// record (another clone's, or one whose record clean removed once its issue
// was done), is no run of the issue here: the issue's run starts afresh, as
// on the local engine once clean removed the run's state. One that goes on
// or waits is another agentloop's ([fleetIssues.notIssues]).
func (l fleetIssues) load(ctx context.Context, name string) (*state.State, error) {
	v, err := l.view(ctx, name)
	if err != nil {
		return nil, err
	}
	st := v.State
	if v.Waiting {
		st.Status = state.StatusEscalated
	}
	l.lives.set(name, v.Live)
	if st.Issue, err = l.read(name); err != nil {
		return nil, err
	}
	if st.Issue == nil && !v.Waiting && st.Status.Ended() {
		return nil, fmt.Errorf("%w: run %s ended, and no issue record of it is in %s", state.ErrNotFound, name, l.path(name))
	}
	return &st, nil
}

// notIssues: the run goes on (or waits) under this clone's identity on the
// server, its issue record kept elsewhere: in the clone that started it,
// which shares this one's identity (a copy of it with its state folder, or
// a clone at the same path on a machine of the same name; [temporal.RepoID]),
// or in this one until the record was removed. The run's state names the
// worktree it works in, not who started it.
func (l fleetIssues) notIssues(st *state.State) string {
	from := ""
	if st.WorkDir != "" {
		from = ", working in " + st.WorkDir
	}
	what := "goes on"
	if st.Status == state.StatusEscalated {
		what = "waits for a person"
	}
	return fmt.Sprintf("its run %s %s on %s (run ID %s, started %s%s), but this clone keeps no issue record of it (%s): "+
		"another clone's agentloop started it, and that one follows it and writes on the issue. "+
		"Run the issue from that clone ('agentloop run --issue' there, which also takes a writer's answer from the issue); "+
		"once the run has ended, run --issue here starts the issue afresh",
		st.Name, what, l.f.Where(), st.RunID, st.StartedAt.Local().Format(time.DateTime), from, l.path(st.Name))
}

func (l fleetIssues) begin(_ context.Context, name string, rec state.Issue) error {
	return l.write(name, &rec)
}

func (l fleetIssues) record(_ context.Context, name string, seed state.Issue, change func(*state.Issue)) error {
	i, err := l.read(name)
	if err != nil {
		return err
	}
	if i == nil {
		i = &seed
	}
	change(i)
	return l.write(name, i)
}

// live: the iteration and phase of the run's step under way as its
// worker's last heartbeat told the server, read with the run's state by the
// last load; not known while no step is under way, or it told nothing yet
// (the progress comment says the iteration the run's state has).
func (l fleetIssues) live(name string) (int, string, bool) {
	ls := l.lives.get(name)
	return ls.Iteration, ls.Phase, ls.Phase != ""
}

func (l fleetIssues) needsYou(ctx context.Context, st *state.State) decision.NeedsYou {
	v, err := l.view(ctx, st.Name)
	if err != nil {
		return decision.NeedsYou{}
	}
	rec, _, _ := state.NeedsYouNow(v.Events)
	return rec
}

func (l fleetIssues) owning(ctx context.Context) []*state.State {
	entries, _ := os.ReadDir(filepath.Join(l.root, "issues")) // none yet: none
	var out []*state.State
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if i, err := l.read(name); err != nil || i == nil || i.PR == 0 || i.Ended != "" {
			continue // no pull request open: nothing of the server to read
		}
		// A continuation for the pull request goes on on the fleet whatever
		// became of the command that started it: the one that takes it
		// again follows it, then pushes its work.
		if st, err := l.load(ctx, name); err == nil && (owning(st) || continuing(st)) {
			out = append(out, st)
		}
	}
	return out
}

// handOver: the continuation starts on a worker, which may work in another
// clone, from the run's last checkpoint unless told another: the merge is
// taken as a checkpoint of the run (merge-COMMIT in its folder), shared on
// remote with the others when its workers share them there, where a worker
// fetches them, and the run goes on from it.
func (fleetIssues) handOver(ctx context.Context, repo, remote string, st *state.State, commit string) (string, error) {
	if commit == "" {
		return "", errors.New("the merge commit is not known")
	}
	ref := engine.CheckpointRefs(st.Name, st.RunID) + "merge-" + commit
	if _, err := gitx.AddCheckpoint(ctx, repo, remote, ref, commit); err != nil {
		return "", err
	}
	return commit, nil
}

func (fleetIssues) flags(s Server) string { return engineFlags(s) }

func (fleetIssues) goesOn(st *state.State) bool {
	return !st.Status.Ended() && st.Status != state.StatusEscalated
}

// reach brings the work of the run of st into the issue's worktree wt of the
// clone repo: its last checkpoint, which a worker working in another clone
// pushed to the remote the workers share (worker --checkpoint-remote),
// fetched from remote when this clone has it not. A worker working in wt
// itself (in this clone) left it there already.
func (fleetIssues) reach(ctx context.Context, repo, remote, wt string, st *state.State) error {
	if st.Tree == "" {
		return nil
	}
	if gitx.CommitOf(ctx, repo, st.Tree) == "" {
		if err := gitx.FetchCheckpoints(ctx, repo, remote, engine.CheckpointRefs(st.Name, st.RunID)); err != nil || gitx.CommitOf(ctx, repo, st.Tree) == "" {
			return fmt.Errorf("the last checkpoint %s of run %s is in the clone of the worker that ran it, not on the remote %s (%v): start the workers with --checkpoint-remote %s, a remote their clones share with this one", st.Tree, st.Name, remote, err, remote)
		}
	}
	return gitx.Restore(ctx, wt, st.Tree)
}
