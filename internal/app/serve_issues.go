package app

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// ServeIssuesOptions are how `agentloop serve` runs a tracker's issues.
type ServeIssuesOptions struct {
	// Query is the issues to take as a person writes it ([forge.ParseQuery]);
	// "": those with the configuration's queued label (agentloop).
	Query string
	// Plan is how the plan of each issue's run is resolved, afresh for
	// each: the configuration and flags of the repository's work tree; Args
	// the flags each run records.
	Plan PlanOptions
	Args []string
	// MaxCostPerIssue caps each issue's run at this many US dollars (0: the
	// plan's own limit); a plan's lower limit stands.
	MaxCostPerIssue float64
	// Every, MaxWait, Parallel and Once are [ServeOptions]'.
	Every, MaxWait time.Duration
	Parallel       int
	Once           bool
	// Server, Configure, Forge, Remote, Verbose and JSON are each issue's
	// [IssueOptions].
	Server        Server
	Configure     plan.Configure
	Forge         OpenForge
	Remote        string
	Verbose, JSON bool
	Log           *slog.Logger
}

// ServeIssues takes the issues o.Query selects on the forge of the work
// tree's repository, as they come, and runs each as `run --issue` does
// ([RunIssue]), each in its own worktree on its own branch; an issue that
// waits for a person is taken again when a person changed it, so a writer's answer
// on it goes on with its run ([Serve]).
func ServeIssues(ctx context.Context, eng IssueEngine, pr Process, o ServeIssuesOptions) (ServeStats, error) {
	resolve := func() (*plan.Plan, error) {
		p, err := ResolvePlan(o.Plan)
		if err == nil {
			p.Args = o.Args
		}
		return p, err
	}
	p, err := resolve()
	if err != nil {
		return ServeStats{}, err
	}
	labels, remote := issueLabels(p), remoteOrOrigin(o.Remote)
	top, def, err := issueClone(ctx, p.WorkDir, remote, "serve")
	if err != nil {
		return ServeStats{}, err
	}
	text := o.Query
	if text == "" {
		text = "label:" + quoteLabel(labels.Queued)
	}
	q, err := forge.ParseQuery(text, def)
	if err != nil {
		return ServeStats{}, &UsageError{Err: err}
	}
	if !cloneHolds(def, q.Repo) {
		return ServeStats{}, &UsageError{Err: fmt.Errorf("serve --issues %q: the issues of %s would be worked on in a clone of %s (its %s remote); run serve in a clone of %s", text, q.Repo, def, remote, q.Repo)}
	}
	if o.Forge == nil {
		return ServeStats{}, &UsageError{Err: fmt.Errorf("serve needs a forge client, and this build has none")}
	}
	f, err := o.Forge(ctx, q.Repo, forgeApp(p))
	if err != nil {
		return ServeStats{}, forgeFailure(err, q.Repo.Host, "open the forge", "")
	}
	out := pr.Progress(o.JSON)
	eng, states, err := issueEngine(ctx, eng, p.StateDir, top, out)
	if err != nil {
		return ServeStats{}, err
	}
	memo := newIssueMemo()
	fmt.Fprintf(out, "Serving the issues of %s with %s, every %s; Ctrl-C stops after the runs under way\n", q.Repo, text, cmp.Or(o.Every, DefaultServeEvery))
	run := func(ctx context.Context, is forge.Issue) error {
		p, err := resolve()
		if err != nil {
			return err
		}
		if c := o.MaxCostPerIssue; c > 0 && (p.Proc.Limits.MaxCostUSD == 0 || c < p.Proc.Limits.MaxCostUSD) {
			p.Proc.Limits.MaxCostUSD = c
			// Recorded as the run's own, for its resume and a fleet's worker.
			p.Args = append(slices.Clone(p.Args), "--max-cost="+strconv.FormatFloat(c, 'g', -1, 64))
		}
		io := IssueOptions{Ref: is.Ref.String(), Plan: p, Server: o.Server, Configure: o.Configure,
			Forge: func(context.Context, forge.Repo, config.GitHubApp) (forge.Forge, error) { return f, nil }, Remote: remote, Verbose: o.Verbose, JSON: o.JSON}
		return memo.run(is.Ref, io, out, func(io IssueOptions) (Outcome, error) { return RunIssue(ctx, eng, pr, io) })
	}
	so := issueServeOptions(ctx, q, labels, states)
	so.Quiet = memo.quietNow
	so.Every, so.MaxWait, so.Parallel, so.Once, so.Log = o.Every, o.MaxWait, o.Parallel, o.Once, o.Log
	return Serve(ctx, f, so, run)
}

// issueServeOptions are what serve watches of the issues q selects, their
// runs' records read through states: the issues waiting for a person
// (labelled needs-you), taken again for a change that is not the run's own
// write, and those whose run owns a pull request or left a continuation for
// it ([ownedIssues]).
func issueServeOptions(ctx context.Context, q forge.Query, labels config.IssueLabels, states issueStates) ServeOptions {
	return ServeOptions{
		Query: q, Waiting: forge.Query{Repo: q.Repo, Labels: []string{labels.NeedsYou}},
		Owned: func() []forge.IssueRef { return ownedIssues(ctx, states, q.Repo) },
		Wrote: func(ref forge.IssueRef) (time.Time, int64) {
			st, _ := states.load(ctx, IssueRunName(ref.Number)) // none: every change is a person's
			if st == nil || st.Issue == nil {
				return time.Time{}, 0
			}
			if of, err := forge.ParseIssueRef(st.Issue.Ref, q.Repo); err != nil || of.Number != ref.Number || !strings.EqualFold(of.Repo.String(), ref.Repo.String()) {
				return time.Time{}, 0
			}
			return st.Issue.Wrote, st.Issue.Heard
		},
	}
}

// ownedIssues are the issues of repo whose run on its engine owns an open
// pull request ([owning]), or left a continuation for it that no process
// runs ([continuationLeft]), for serve to watch, or to go on with as run
// --issue goes on.
func ownedIssues(ctx context.Context, states issueStates, repo forge.Repo) []forge.IssueRef {
	var out []forge.IssueRef
	for _, st := range states.owning(ctx) {
		if st.Issue.Ended != "" {
			continue
		}
		if ref, err := forge.ParseIssueRef(st.Issue.Ref, repo); err == nil && strings.EqualFold(ref.Repo.String(), repo.String()) {
			out = append(out, ref)
		}
	}
	return out
}

// issueMemo is what serve remembers of its issues for their runs between
// polls: the waiting issues changed by no one but this agentloop since its
// last write ([ServeOptions.Quiet]), whose runs read no comment for an
// answer, and the question each run last said it still waits for, said
// once. Both follow the issues serve watches, not the time it runs.
type issueMemo struct {
	mu    sync.Mutex
	quiet map[forge.IssueRef]bool
	said  map[forge.IssueRef]string
	// hushed are the runs under way that said nothing new.
	hushed map[forge.IssueRef]bool
}

func newIssueMemo() *issueMemo {
	return &issueMemo{said: map[forge.IssueRef]string{}, hushed: map[forge.IssueRef]bool{}}
}

func (m *issueMemo) quietNow(q map[forge.IssueRef]bool) {
	m.mu.Lock()
	m.quiet = q
	m.mu.Unlock()
}

// run runs the issue ref with o as serve does (run: [RunIssue]), with
// what m knows of it, and says how its run is, unless it said nothing new.
func (m *issueMemo) run(ref forge.IssueRef, o IssueOptions, out io.Writer, run func(IssueOptions) (Outcome, error)) error {
	res, err := run(m.options(ref, o))
	hushed := m.ran(ref, res.Status)
	if err != nil {
		fmt.Fprintf(out, "Issue %s: %v\n", ref, err)
		return err
	}
	if res.Status != "" && !hushed {
		fmt.Fprintf(out, "Issue %s: its run is %s\n", ref, res.Status)
	}
	return nil
}

// options are o for the run of ref, with what serve knows of it.
func (m *issueMemo) options(ref forge.IssueRef, o IssueOptions) IssueOptions {
	m.mu.Lock()
	defer m.mu.Unlock()
	o.unchanged, o.memo = m.quiet[ref], m
	delete(m.hushed, ref)
	return o
}

// waiting reports whether the run of ref is to say that it still waits
// for the question key: not when it said so last.
func (m *issueMemo) waiting(ref forge.IssueRef, key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.said[ref] == key {
		m.hushed[ref] = true
		return false
	}
	m.said[ref] = key
	return true
}

// ran notes the end of the run of ref, which ended as status: whether it
// said nothing new. One that waits no more is forgotten.
func (m *issueMemo) ran(ref forge.IssueRef, status state.Status) (hushed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	hushed = m.hushed[ref]
	delete(m.hushed, ref)
	if status != state.StatusEscalated {
		delete(m.said, ref)
	}
	return hushed
}

// continuationLeft reports whether st is of an issue's run with a
// continuation for its pull request under way (its work not pushed yet)
// that no process runs: killed, interrupted, or ended before its push. Its
// labels say running, so no list of serve's holds it; run --issue goes on
// with it. One that stopped for a person (escalated, or its limits spent)
// waits labelled needs-you.
func continuationLeft(store state.Store, st *state.State) bool {
	return continuing(st) && !store.Owned(st.Name)
}

// continuing reports whether st is of an issue's run with a continuation
// for its pull request not pushed yet, that does not wait for a person.
func continuing(st *state.State) bool {
	if st.Issue == nil || st.Issue.PR == 0 || st.Issue.Fixing == "" {
		return false
	}
	switch st.Status {
	case state.StatusEscalated, state.StatusAborted:
		return false
	}
	return true
}

// quoteLabel is a label as a query writes it: quoted when it holds a space.
func quoteLabel(l string) string {
	for _, r := range l {
		if r == ' ' || r == '\t' {
			return `"` + l + `"`
		}
	}
	return l
}
