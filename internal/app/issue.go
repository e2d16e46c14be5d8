package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/gitx"
	"github.com/agentloop/agentloop/internal/graph"
	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/prompt"
	"github.com/agentloop/agentloop/internal/report"
	"github.com/agentloop/agentloop/internal/state"
	"github.com/agentloop/agentloop/internal/tasks"
)

// IssueGraph is the name an issue's run takes its names from, as a task of
// a graph of that name would: the run issue-N, its branch agentloop/issue/N
// and its worktree worktrees/issue/N in the state folder ([tasks.TaskRunName],
// [tasks.TaskBranch], [tasks.TaskWorkTree]), so that clean and status treat
// its worktree and branch as they treat a task's.
const IssueGraph = "issue"

// IssueRunName is the run name of the issue numbered n.
func IssueRunName(n int) string { return tasks.TaskRunName(IssueGraph, strconv.Itoa(n)) }

// IssueEngine is what of an [Engine] an issue's run needs: a run started,
// a run resumed by the rules both engines follow, and a run's report (its
// pull request's body).
type IssueEngine interface {
	Run(ctx context.Context, p *plan.Plan, o Server) (Outcome, error)
	Resume(ctx context.Context, name string, o ResumeOptions) (Outcome, error)
	Report(ctx context.Context, name, runID string, lastEvents int) (report.Run, error)
}

// IssueOptions are how `run --issue` runs an issue.
type IssueOptions struct {
	// Ref is the issue as the person wrote it ([forge.ParseIssueRef]); #N
	// and N take their repository from the work tree's remote Remote.
	Ref string
	// Plan is the run's plan, resolved in the repository's work tree; the
	// issue's run works in a worktree of its own on its own branch.
	Plan   *plan.Plan
	Server Server
	// Configure is the configuration of a run resumed (its recorded flags,
	// those given now on top), as [ResumeOptions.Configure].
	Configure plan.Configure
	// Forge opens the forge holding the issue's repository ([OpenGitHub]).
	Forge OpenForge
	// Remote is the git remote the branch is pushed to ("": origin).
	Remote string
	// ProgressEvery is the least time between two edits of the progress
	// comment but for a decision, which edits it at once (0: the
	// configuration's issues.progress_every, else 30s); Poll how often the
	// run's state is read for it (0: 1s).
	ProgressEvery, Poll time.Duration
	Verbose, JSON       bool
	// unchanged says serve found the issue changed by no one but this
	// agentloop since its run's last write on it: a question's answer is
	// not read again. memo is serve's memory of its issues' runs (nil: run
	// --issue), for a line said at each poll to be said once.
	unchanged bool
	memo      *issueMemo
}

// DefaultProgressEvery is the least time between two edits of an issue's
// progress comment, but for a decision: a long run does not spend the
// forge's rate limit.
const DefaultProgressEvery = 30 * time.Second

// issueRun is one `run --issue`: the issue, its forge, and where its run is.
type issueRun struct {
	o      IssueOptions
	pr     Process
	eng    IssueEngine
	f      forge.Forge
	ref    forge.IssueRef
	issue  forge.Issue
	task   string
	labels config.IssueLabels
	repo   string      // the person's work tree (its top), never touched
	store  state.Store // this clone's state folder: the run's worktree
	// states are the run's state and issue record, on its engine.
	states issueStates
	name   string
	branch string
	wt     string
	remote string
	// ignored counts the /agentloop commands of people who cannot write,
	// for the progress comment to say (never to quote).
	ignored int
	out     io.Writer
	mu      sync.Mutex // the progress comment's edits
	shown   progress   // what the progress comment says now
	wrote   time.Time  // the forge's time of its last edit ([state.Issue.Wrote])
	heard   int64      // the newest comment read for the task or an answer ([state.Issue.Heard])
	// askedURL is the question's comment, found by [issueRun.answer].
	askedURL string
}

// RunIssue runs the issue o.Ref names, from intake to pull request: it reads
// the issue (its writers' words as the task, everyone else's only as marked
// data), claims it on the tracker (labels, one progress comment kept up to
// date, a race with another agentloop lost politely), runs its loop on eng in
// a worktree of its own on the branch agentloop/issue/N (the person's
// checkout is never touched), and then, by how the run stands: pushes the
// branch and opens or updates the pull request (its body the run's receipt),
// or asks an escalation's question on the issue. Run again, it goes on from
// where the run stands — a restart never writes a second comment or pull
// request, and an escalation is answered by a writer's /agentloop command in
// a comment after the question ([IssueCommand]).
func RunIssue(ctx context.Context, eng IssueEngine, pr Process, o IssueOptions) (Outcome, error) {
	p := o.Plan
	r := &issueRun{o: o, pr: pr, eng: eng, labels: issueLabels(p), store: state.Store{Root: p.StateDir}, remote: remoteOrOrigin(o.Remote), out: pr.Progress(o.JSON)}
	if err := r.resolve(ctx); err != nil {
		return Outcome{}, err
	}
	defer r.noteWrote(ctx)
	if p.Issues.RequireSandbox && !p.Proc.Sandbox.Agents {
		return Outcome{}, &UsageError{Err: fmt.Errorf("issue %s: the configuration requires an issue's run in the sandbox (issues: {require_sandbox: true}): an issue is text from outside the repository; run again with --sandbox (see 'agentloop doctor')", r.ref)}
	}
	var err error
	if r.eng, r.states, err = issueEngine(ctx, eng, p.StateDir, r.repo, r.out); err != nil {
		return Outcome{}, fmt.Errorf("issue %s: %w", r.ref, err)
	}
	prev, err := r.states.load(ctx, r.name)
	switch {
	case errors.Is(err, state.ErrNotFound):
		prev = nil
	case err != nil:
		return Outcome{}, fmt.Errorf("issue %s: read the state of its run %s: %w", r.ref, r.name, err)
	case prev.Issue == nil:
		return Outcome{}, &UsageError{Err: fmt.Errorf("issue %s: %s", r.ref, r.states.notIssues(prev))}
	}
	if owning(prev) { // its pull request is open: what it asks, before the issue (closed once it is merged)
		out, goOn, err := r.own(ctx, prev)
		if err != nil || !goOn {
			return out, err
		}
		return r.after(ctx, out)
	}
	if prev != nil && prev.Issue.PR != 0 && (prev.Issue.Fixing != "" || prev.Issue.Ended == string(forge.PRMerged) || prev.Issue.Ended == string(forge.PRClosed)) {
		// A continuation left (killed): its pull request merged or closed
		// since (the issue closed with it) ends the run, not the issue's read.
		how, head := forge.PRState(prev.Issue.Ended), ""
		if how == "" {
			ps, err := r.f.PRStatus(ctx, r.ref.Repo, prev.Issue.PR)
			if err != nil {
				return Outcome{}, forgeFailure(err, r.ref.Host, fmt.Sprintf("read pull request #%d of issue %s", prev.Issue.PR, r.ref), r.kept())
			}
			how, head = ps.PR.State, ps.PR.HeadSHA
		}
		if how == forge.PRMerged || how == forge.PRClosed {
			r.showOwned(prev)
			_, _, err := r.ended(ctx, prev, how, head)
			// The run succeeded before its pull request asked for the continuation: over as it is.
			return Outcome{Status: state.StatusSucceeded}, err
		}
	}
	if err := r.intake(ctx); err != nil {
		return Outcome{}, err
	}
	out, err := r.loop(ctx, prev)
	if err != nil || out.Status == "" {
		return out, err
	}
	return r.after(ctx, out)
}

// resolve reads the issue's reference, with the work tree's remote for #N,
// and opens its forge.
func (r *issueRun) resolve(ctx context.Context) error {
	top, def, err := issueClone(ctx, r.o.Plan.WorkDir, r.remote, "run --issue")
	if err != nil {
		return err
	}
	r.repo = top
	if r.ref, err = forge.ParseIssueRef(r.o.Ref, def); err != nil {
		return &UsageError{Err: err}
	}
	if !cloneHolds(def, r.ref.Repo) {
		// Its branch would be pushed to one repository, its pull request opened on another.
		return &UsageError{Err: fmt.Errorf("issue %s is not of this clone's repository (its %s remote is %s): run it in a clone of %s", r.ref, r.remote, def, r.ref.Repo)}
	}
	id := strconv.Itoa(r.ref.Number)
	r.name, r.branch = IssueRunName(r.ref.Number), tasks.TaskBranch(IssueGraph, id)
	r.wt = tasks.TaskWorkTree(r.store.Root, IssueGraph, id)
	if r.o.Forge == nil {
		return &UsageError{Err: errors.New("run --issue needs a forge client, and this build has none")}
	}
	if r.f, err = r.o.Forge(ctx, r.ref.Repo, forgeApp(r.o.Plan)); err != nil {
		return forgeFailure(err, r.ref.Host, "open the forge", "")
	}
	return nil
}

// intake reads the issue and its comments: the task the agent is given.
// agentloop's own comments and /agentloop commands are not the task.
func (r *issueRun) intake(ctx context.Context) error {
	is, err := r.f.Issue(ctx, r.ref)
	if err != nil {
		return forgeFailure(err, r.ref.Host, "read issue "+r.ref.String(), "")
	}
	if !is.Open {
		return &UsageError{Err: fmt.Errorf("issue %s is closed: reopen it to have agentloop work on it", r.ref)}
	}
	cs, err := r.f.Comments(ctx, r.ref)
	if err != nil {
		return forgeFailure(err, r.ref.Host, "read the comments of issue "+r.ref.String(), "")
	}
	t := prompt.Issue{Ref: r.ref.String(), Title: is.Title, Body: is.Body}
	for _, c := range cs {
		r.heard = max(r.heard, c.ID)
		if ours(c) {
			continue
		}
		if _, _, ok := IssueCommand(c.Body); ok {
			continue // an answer to an escalation, or a stranger's try: not the task
		}
		t.Comments = append(t.Comments, prompt.IssueComment{Author: c.Author, Body: c.Body, Trusted: c.Trusted})
	}
	r.issue, r.task = is, prompt.IssueTask(t)
	return nil
}

// ours reports whether c is a comment agentloop wrote: one of its markers,
// by someone who may write (a stranger's copy of a marker is not ours).
func ours(c forge.Comment) bool {
	return c.Trusted && strings.Contains(c.Body, "<!-- agentloop:")
}

// worktree makes the run's worktree on its branch from the person's HEAD,
// unless it is there; the person's checkout and its uncommitted work are
// left as they are.
func (r *issueRun) worktree(ctx context.Context, prev *state.State) error {
	if err := r.store.EnsureRoot(); err != nil {
		return err
	}
	if prev != nil && prev.Status.Ended() && prev.Status != state.StatusEscalated && prev.Status != state.StatusInterrupted && prev.Status != state.StatusAborted {
		return nil // done: its work is on its branch, the worktree not needed again
	}
	base, err := graph.Base(ctx, r.repo)
	if err != nil {
		return &UsageError{Err: err}
	}
	if err := graph.AddTaskWorkTree(ctx, r.repo, r.store.Root, IssueGraph, strconv.Itoa(r.ref.Number), base); err != nil {
		return fmt.Errorf("issue %s: %w", r.ref, err)
	}
	return nil
}

// issueLabels are the labels an issue's run moves: the configuration's, or
// the defaults when it names none.
func issueLabels(p *plan.Plan) config.IssueLabels {
	if p.Issues.Labels == (config.IssueLabels{}) {
		return config.DefaultIssueLabels
	}
	return p.Issues.Labels
}

// remoteOrOrigin is the git remote an issue's branch is pushed to.
func remoteOrOrigin(remote string) string {
	if remote == "" {
		return "origin"
	}
	return remote
}

// issueClone is the clone of wd an issue's run (what: the command) works
// from: its top folder, and the repository its remote names (zero when the
// remote is a local path, which names no forge).
func issueClone(ctx context.Context, wd, remote, what string) (top string, repo forge.Repo, err error) {
	top, _, err = gitx.WorkTreeOf(ctx, wd)
	if err != nil {
		return "", forge.Repo{}, &UsageError{Err: fmt.Errorf("%s works on a branch and worktree of its own: run it in a clone of the issue's repository: %w", what, err)}
	}
	if url, err := gitx.RemoteURL(ctx, top, remote); err == nil {
		repo, _ = forge.RepoOfRemote(url) // a local path names no forge: the reference must
	}
	return top, repo, nil
}

// cloneHolds reports whether a clone whose remote names clone works on
// repo's issues: its branch is pushed to one repository, its pull request
// opened on the other. A clone whose remote names no forge holds any.
func cloneHolds(clone, repo forge.Repo) bool {
	return clone.Name == "" || strings.EqualFold(clone.String(), repo.String())
}
