package decide

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// scenario is a scripted run: the evidence of each iteration and the decision
// agentloop's engine must take on it.
type scenario struct {
	Name   string     `yaml:"name"`
	About  string     `yaml:"about"`
	Spec   scenSpec   `yaml:"spec"`
	Policy yaml.Node  `yaml:"policy"` // overrides of DefaultPolicy
	Oracle scenOracle `yaml:"oracle"`
	// Baseline is the failing tests the baseline found (none: no baseline ran).
	Baseline []string   `yaml:"baseline"`
	Iters    []scenIter `yaml:"iterations"`
	file     string
}

type scenSpec struct {
	Reviewer      bool    `yaml:"reviewer"`
	MaxIterations int     `yaml:"max_iterations"`
	MaxCostUSD    float64 `yaml:"max_cost_usd"`
	Timeout       string  `yaml:"iteration_timeout"`
	// FailureThreshold is the user's consecutive-failure threshold (0: the
	// default of 3).
	FailureThreshold int `yaml:"failure_threshold"`
}

// scenOracle is what a perfect controller would do: stop after Iterations with
// Outcome (proceed when the goal is reachable, escalate or abort when it is not).
type scenOracle struct {
	Iterations int    `yaml:"iterations"`
	Outcome    string `yaml:"outcome"`
}

type scenIter struct {
	Agent   scenAgent   `yaml:"agent"`
	Failing []string    `yaml:"failing"` // failing test keys
	Build   []string    `yaml:"build"`   // build error messages
	Flaky   []string    `yaml:"flaky"`
	Infra   bool        `yaml:"infra"`
	Passed  int         `yaml:"passed"`
	Lint    int         `yaml:"lint"`
	Diff    scenDiff    `yaml:"diff"`
	Review  *scenReview `yaml:"review"`
	Cost    float64     `yaml:"cost"`
	Expect  scenExpect  `yaml:"expect"`
}

type scenAgent struct {
	Exit        int  `yaml:"exit"`
	Transient   bool `yaml:"transient"`
	RateLimited bool `yaml:"rate_limited"`
	Completed   bool `yaml:"completed"`
}

type scenDiff struct {
	Hash      string   `yaml:"hash"`
	Tree      string   `yaml:"tree"`
	Lines     int      `yaml:"lines"`
	Outside   []string `yaml:"outside"`
	Protected []string `yaml:"protected"`
	NewDeps   []string `yaml:"new_deps"`
	Secrets   int      `yaml:"secrets"`
	Skips     int      `yaml:"skips"`
	Asserts   int      `yaml:"asserts_removed"`
	TestFiles []string `yaml:"test_files"`
}

type scenReview struct {
	Verdict  string   `yaml:"verdict"`
	Score    float64  `yaml:"score"`
	Tags     []string `yaml:"tags"`
	Findings []string `yaml:"findings"` // "severity: message"
}

type scenExpect struct {
	Action   string   `yaml:"action"`
	Strategy string   `yaml:"strategy"`
	Triggers []string `yaml:"triggers"` // must be among the decision's triggers
	Rollback bool     `yaml:"rollback"`
	Focus    bool     `yaml:"focus"`
	Expand   bool     `yaml:"expand"`
}

func loadScenarios(t testing.TB) []scenario {
	t.Helper()
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	var out []scenario
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		var s scenario
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s.file = filepath.Base(f)
		out = append(out, s)
	}
	return out
}

func (s scenario) policy(t testing.TB) Policy {
	p := DefaultPolicy()
	if s.Policy.Kind != 0 {
		if err := s.Policy.Decode(&p); err != nil {
			t.Fatalf("%s: policy: %v", s.file, err)
		}
	}
	return p
}

func (it scenIter) evidence(n int) evidence.Iteration {
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)
	ev := evidence.Iteration{
		N: n, Started: start, Finished: start.Add(30 * time.Second),
		Agent: evidence.AgentResult{
			Agent: "fake", ExitCode: it.Agent.Exit, Transient: it.Agent.Transient, RateLimited: it.Agent.RateLimited,
			Completed: it.Agent.Completed, Usage: evidence.Usage{CostUSD: it.Cost, CostKnown: true},
		},
	}
	tests := evidence.GateResult{Name: "tests", Required: true, Infra: it.Infra, Tests: evidence.TestCounts{Passed: it.Passed}}
	for _, k := range it.Failing {
		tests.Findings = append(tests.Findings, evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: k, Key: "test:" + k, Message: k + " failed", Severity: "error"})
	}
	for _, k := range it.Flaky { // failed, then passed when the gate ran again
		tests.Flaky = append(tests.Flaky, evidence.Finding{Kind: evidence.KindTest, Tool: "go", ID: k, Key: "test:" + k, Message: k + " failed", Severity: "error", Flaky: true})
	}
	for _, m := range it.Build {
		tests.Findings = append(tests.Findings, evidence.Finding{Kind: evidence.KindBuild, Tool: "go", File: "x.go", Message: m, Severity: "error"})
	}
	tests.Tests.Failed = len(it.Failing)
	tests.Passed = !it.Infra && len(it.Failing)+len(it.Build) == 0
	ev.Gates = append(ev.Gates, tests)
	if it.Lint > 0 {
		lint := evidence.GateResult{Name: "lint", Required: false}
		for i := range it.Lint {
			lint.Findings = append(lint.Findings, evidence.Finding{Kind: evidence.KindLint, Tool: "vet", File: "x.go", Line: i, Message: fmt.Sprintf("lint %d", i), Key: fmt.Sprintf("lint:%d", i)})
		}
		ev.Gates = append(ev.Gates, lint)
	} else {
		ev.Gates = append(ev.Gates, evidence.GateResult{Name: "lint", Passed: true})
	}
	d := it.Diff
	ev.Diff = evidence.DiffFacts{
		Hash: d.Hash, TreeHash: d.Tree, Added: d.Lines, OutsideScope: d.Outside, ProtectedTouched: d.Protected,
		NewDeps: d.NewDeps, SecretsFound: d.Secrets, SkipsAdded: d.Skips, AssertsRemoved: d.Asserts, TestFilesChanged: d.TestFiles,
	}
	if d.Hash != "" || d.Lines > 0 {
		ev.Diff.Files = []string{"x.go"}
	}
	if r := it.Review; r != nil {
		ev.Review = &evidence.Review{Verdict: r.Verdict, Score: r.Score, Tags: r.Tags}
		for i, f := range r.Findings {
			sev, msg, _ := strings.Cut(f, ": ")
			ev.Review.Findings = append(ev.Review.Findings, evidence.ReviewFinding{ID: fmt.Sprintf("r%d", i+1), Severity: sev, Message: msg})
		}
	}
	return ev
}

// simulate runs the scripted iterations through a decider the way the loop does
// (the decider's preflight before each iteration, its decision after), and
// returns the decisions. Past the script's end the last iteration repeats (the
// agent keeps doing the same), up to the iteration limit.
func simulate(s scenario, dec state.Decider) ([]state.Decision, []evidence.Iteration) {
	spec := state.Spec{Name: s.Name, HasGates: true, HasReviewer: s.Spec.Reviewer,
		Limits: budget.Limits{MaxIterations: s.Spec.MaxIterations, MaxCostUSD: s.Spec.MaxCostUSD,
			FailureThreshold: cmp.Or(s.Spec.FailureThreshold, failureThreshold)}}
	if s.Spec.Timeout != "" {
		spec.Limits.IterationTimeout, _ = time.ParseDuration(s.Spec.Timeout)
	}
	limit := s.Spec.MaxIterations
	if limit == 0 {
		limit = 10
	}
	st := &state.State{Version: 1, Name: s.Name, Status: state.StatusRunning}
	if s.Baseline != nil {
		st.BaselineDone = true
		st.Baseline = scenIter{Failing: s.Baseline, Passed: 10 - len(s.Baseline)}.evidence(0).Gates
	}
	var ds []state.Decision
	var evs []evidence.Iteration
	for n := 1; n <= limit; n++ {
		if n > 1 {
			if p := dec.Preflight(state.PreflightInput{State: st, Spec: &spec, Budget: state.BudgetStatus(st, nil)}); p.Action != state.ActionContinue {
				ds[len(ds)-1].Action = p.Action
				break
			}
		}
		it := s.Iters[min(n, len(s.Iters))-1]
		ev := it.evidence(n)
		d := dec.Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: state.BudgetStatus(st, &ev)})
		ds, evs = append(ds, d), append(evs, ev)
		record(st, ev, d)
		if !d.Action.Continues() {
			break
		}
	}
	return ds, evs
}

// failureThreshold is the default consecutive-failure threshold.
const failureThreshold = 3

// record is what the loop does with a decision: it folds it into the state,
// the iteration's checkpoint named after it.
func record(st *state.State, ev evidence.Iteration, d state.Decision) {
	st.Fold(ev, st.TotalIterations+1, state.StepResult{Checkpoint: fmt.Sprintf("ckpt-%d", ev.N)}, d)
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	for _, s := range loadScenarios(t) {
		t.Run(strings.TrimSuffix(s.file, ".yaml"), func(t *testing.T) {
			t.Parallel()
			ds, _ := simulate(s, New(s.policy(t)))
			if len(ds) != len(s.Iters) {
				t.Errorf("ran %d iterations, the script has %d", len(ds), len(s.Iters))
			}
			for i, d := range ds {
				if i >= len(s.Iters) {
					break
				}
				want := s.Iters[i].Expect
				got := fmt.Sprintf("iteration %d: %s/%s %v (%s)", i+1, d.Action, d.Strategy, triggerIDs(d.Triggers), d.Message)
				if string(d.Action) != want.Action || (want.Strategy != "" && d.Strategy != want.Strategy) {
					t.Errorf("%s; want %s/%s", got, want.Action, want.Strategy)
				}
				for _, id := range want.Triggers {
					if !slices.Contains(triggerIDs(d.Triggers), id) {
						t.Errorf("%s; want trigger %s", got, id)
					}
				}
				if want.Rollback != (d.Rollback != "") {
					t.Errorf("%s; rollback %q, want rollback %v", got, d.Rollback, want.Rollback)
				}
				if want.Focus && d.Next.Focus == "" || want.Expand && len(d.Next.Expand) == 0 {
					t.Errorf("%s; next %+v lacks focus or expand", got, d.Next)
				}
				if d.Action == state.ActionEscalate && (d.Escalation == nil || d.Escalation.Question == "" || len(d.Escalation.Options) == 0) {
					t.Errorf("%s; escalation without a question and options: %+v", got, d.Escalation)
				}
			}
		})
	}
}
