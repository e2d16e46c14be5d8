package temporal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/plan"
	"github.com/agentloop/agentloop/internal/state"
)

// NewInput is the workflow input of a run of the plan from the state st (a
// fresh state, or the state a run ended in to continue it); queue routes its
// steps to one worker's queue ("" for the shared one).
func NewInput(p *plan.Plan, st *state.State, queue string) (RunInput, error) {
	pol, err := plan.Policy(p)
	if err != nil {
		return RunInput{}, err
	}
	return RunInput{
		Run: RunRef{
			Name: p.Name, RunID: st.RunID, Procedure: p.Proc.Name, WorkDir: p.WorkDir,
			Args: slices.Clone(p.Args), TaskQueue: queue,
		},
		Task: p.TaskText(), Told: p.Spec().Told, Limits: p.Proc.Limits.Limits,
		HasGates: len(p.Gates) > 0, HasReviewer: p.Reviewer != nil, Baseline: p.Proc.Baseline && len(p.Gates) > 0,
		Policy: pol, State: *st, Shared: p.Budgets.Given,
	}, nil
}

// NewState is the state a new run of the plan starts from.
func NewState(p *plan.Plan, now time.Time) *state.State {
	return &state.State{
		Version: state.StateVersion, Name: p.Name, RunID: state.NewRunID(now), Procedure: p.Proc.Name,
		Status: state.StatusRunning, StartedAt: now, Args: p.Args, WorkDir: p.WorkDir,
		MaxIterations: p.Proc.Limits.MaxIterations, FailureThreshold: p.Proc.Limits.FailureThreshold,
	}
}

// ErrRunning is returned by [Start] when a workflow of the run is running.
var ErrRunning = errors.New("the run is already running on Temporal")

// Start starts a run's workflow on the server's task queue; a session is added
// to the state. A workflow of the run's key ([Scoped]: its name in its
// repository) that is running is not joined: the error says what runs and
// where it was started. The run sets the search attribute [SearchWaiting]
// when the namespace has it; the workflow's memo says from its start that
// the run keeps it ([MemoKept]).
func Start(ctx context.Context, c client.Client, s Server, in RunInput, now time.Time) error {
	in.State.Sessions = append(in.State.Sessions, state.Session{StartedAt: now})
	in.Search = searchable(ctx, c, s.Namespace)
	in.Kept = true
	key := Scoped(in.Run.Name, in.Repo)
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: WorkflowID(key), TaskQueue: s.TaskQueue, Memo: map[string]any{MemoKept: 1},
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
	}, WorkflowRun, in)
	if _, ok := errors.AsType[*serviceerror.WorkflowExecutionAlreadyStarted](err); ok {
		return fmt.Errorf("run %s: %w%s; follow it with 'agentloop follow %s --engine temporal'", in.Run.Name, ErrRunning, running(ctx, c, key), in.Run.Name)
	}
	if err != nil {
		return fmt.Errorf("start the workflow of run %s: %w", in.Run.Name, err)
	}
	return nil
}

// running says what the running workflow of the key is and where it was
// started, from its first event (no worker needed); "" when unknown.
func running(ctx context.Context, c client.Client, key string) string {
	in, at, err := startInput(ctx, c, WorkflowID(key), "")
	if err != nil {
		return ""
	}
	if n := len(in.State.Sessions); in.Renewed != nil && n > 0 {
		at = in.State.Sessions[n-1].StartedAt // its workflow continues one started then (renew.go)
	}
	return fmt.Sprintf(" (run ID %s, started %s in %s, workflow %s)", in.State.RunID, at.Local().Format(time.DateTime), in.Run.WorkDir, WorkflowID(key))
}

// ErrNoRun is returned by [Query] when the server has no run of the name.
var ErrNoRun = errors.New("no run of that name on the Temporal server")

// Query reads a run's state, events and escalation from its workflow, and
// what its step under way is doing from the server's description of it
// ([View.Live]); key is the run's name, or its name in its repository
// ([Scoped]). A run that ended is read from its history, without a worker
// (see [ended]).
func Query(ctx context.Context, c client.Client, key string) (View, error) {
	name, _ := Unscoped(key)
	id := WorkflowID(key)
	d, err := ended(ctx, c, id)
	if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
		return View{}, fmt.Errorf("run %s: %w; 'agentloop status --engine temporal' lists them", name, ErrNoRun)
	}
	if err != nil {
		return View{}, fmt.Errorf("read run %s: %w", name, err)
	}
	runID := d.runID
	var replayErr error
	if d.over {
		v, err := replayedRun(ctx, c, id, runID)
		if err == nil {
			return v, nil
		}
		replayErr = err // a worker of the build that ran it answers the query
	}
	v, err := c.QueryWorkflow(ctx, id, runID, QueryState)
	if err != nil {
		if replayErr != nil {
			return View{}, fmt.Errorf("run %s ended; this build cannot read its history (%v) and the query needs a worker of the build that ran it: %w", name, replayErr, err)
		}
		return View{}, fmt.Errorf("query run %s: %w", name, err)
	}
	var view View
	if err := v.Get(&view); err != nil {
		return View{}, fmt.Errorf("decode the state of run %s: %w", name, err)
	}
	view.Live = d.live
	return view, nil
}

// Find reads the run name as the repository repo knows it: its own run of
// the name ([Scoped]) when the server has one, else the run of the name alone
// (a graph's task, or a run started before runs carried their repository).
// It returns the key the run answered under.
func Find(ctx context.Context, c client.Client, name, repo string) (View, string, error) {
	return find(name, repo, func(key string) (View, error) { return Query(ctx, c, key) })
}

// FindFrom is [Find] reading the run with [QueryFrom]: its events from the
// index from on, its state without its history.
func FindFrom(ctx context.Context, c client.Client, name, repo string, from int) (View, string, error) {
	return find(name, repo, func(key string) (View, error) { return QueryFrom(ctx, c, key, from) })
}

func find(name, repo string, query func(key string) (View, error)) (View, string, error) {
	if repo != "" {
		key := Scoped(name, repo)
		v, err := query(key)
		if !errors.Is(err, ErrNoRun) {
			return v, key, err
		}
	}
	v, err := query(name)
	return v, name, err
}

// Guide sends a human's answer to a run that waits for one (key as for
// [Query]); the error is the run's when it does not accept it (not waiting,
// an empty answer).
func Guide(ctx context.Context, c client.Client, key string, g Guidance) error {
	if err := g.Validate(); err != nil {
		return err
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: WorkflowID(key), UpdateName: UpdateGuidance, Args: []any{g},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err != nil {
		name, _ := Unscoped(key)
		return fmt.Errorf("send the guidance to run %s: %w", name, err)
	}
	return nil
}

// Names lists the keys of the runs the server knows ([Scoped]), newest
// first, each once.
func Names(ctx context.Context, c client.Client) ([]string, error) {
	runs, err := listRuns(ctx, c)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.key
	}
	return names, nil
}

// listed is a run's last workflow as the server's list has it.
type listed struct {
	key  string
	info *workflowpb.WorkflowExecutionInfo
}

// listRuns lists the last workflow of each run the server knows, newest
// first.
func listRuns(ctx context.Context, c client.Client) ([]listed, error) {
	var runs []listed
	seen := map[string]bool{}
	req := &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("WorkflowType = '%s'", WorkflowRun)}
	for {
		resp, err := c.ListWorkflow(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("list the runs on the Temporal server: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			id := e.GetExecution().GetWorkflowId()
			if n, ok := runName(id); ok && !seen[n] {
				seen[n] = true
				runs = append(runs, listed{key: n, info: e})
			}
		}
		if len(resp.GetNextPageToken()) == 0 {
			return runs, nil
		}
		req.NextPageToken = resp.GetNextPageToken()
	}
}

// runName is the run a workflow ID names.
func runName(id string) (string, bool) { return strings.CutPrefix(id, workflowPrefix) }
