package app

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
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
		res, err := RunIssue(ctx, eng, pr, IssueOptions{Ref: is.Ref.String(), Plan: p, Server: o.Server, Configure: o.Configure,
			Forge: func(context.Context, forge.Repo, config.GitHubApp) (forge.Forge, error) { return f, nil }, Remote: remote, Verbose: o.Verbose, JSON: o.JSON})
		if err != nil {
			fmt.Fprintf(out, "Issue %s: %v\n", is.Ref, err)
			return err
		}
		if res.Status != "" {
			fmt.Fprintf(out, "Issue %s: its run is %s\n", is.Ref, res.Status)
		}
		return nil
	}
	so := issueServeOptions(ctx, q, labels, states)
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
