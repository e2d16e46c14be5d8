package decide

import (
	"math/rand/v2"
	"testing"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/state"
)

// TestRandomRuns drives the engine through random runs and checks what must hold
// for any evidence: no panic, severities in 0–1, an escalation always asks one
// question with options, a continuing action always names its strategy, and the
// run's best never gets worse.
func TestRandomRuns(t *testing.T) {
	t.Parallel()
	runs := 300
	if testing.Short() {
		runs = 50
	}
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"A", "B", "C", "D"}
	for run := range runs {
		p := DefaultPolicy()
		p.Fallback = []string{"codex"}
		spec := state.Spec{Name: "r", HasGates: true, HasReviewer: rng.IntN(2) == 0, Limits: budget.Limits{MaxIterations: 12, MaxCostUSD: 3}}
		st := &state.State{Version: 1, Name: "r", Status: state.StatusRunning}
		e := New(p)
		best := -1.0
		for n := 1; n <= 12; n++ {
			var failing []string
			for _, k := range keys {
				if rng.IntN(3) == 0 {
					failing = append(failing, k)
				}
			}
			ev := iter(n, failing...)
			ev.Agent.Usage = evidence.Usage{CostUSD: rng.Float64() * 0.4, CostKnown: true}
			switch rng.IntN(12) {
			case 0:
				ev.Gates[0].Infra, ev.Gates[0].Passed = true, false
			case 1:
				ev.Agent.Transient, ev.Agent.ExitCode = true, 1
			case 2:
				ev.Diff = evidence.DiffFacts{}
			case 3:
				ev.Diff.TreeHash = "t1"
			case 4:
				ev.Diff.SkipsAdded = 1
			case 5:
				ev.Diff.OutsideScope = []string{"x"}
			case 6:
				ev.Gates[0].Findings = append(ev.Gates[0].Findings, evidence.Finding{Kind: evidence.KindBuild, Message: "undefined: x.Y"})
				ev.Gates[0].Passed = false
			}
			if spec.HasReviewer {
				verdicts := []string{"approve", "request_changes", "reject", "unknown"}
				ev.Review = &evidence.Review{Verdict: verdicts[rng.IntN(4)], Score: float64(rng.IntN(11))}
			}
			d := e.Decide(state.DecideInput{State: st, Spec: &spec, Evidence: ev, Budget: state.BudgetStatus(st, &ev)})
			for _, tr := range d.Triggers {
				if tr.Severity < 0 || tr.Severity > 1 {
					t.Fatalf("run %d iteration %d: severity out of range: %+v", run, n, tr)
				}
			}
			if d.Action == state.ActionEscalate && (d.Escalation == nil || d.Escalation.Question == "" || len(d.Escalation.Options) < 2) {
				t.Fatalf("run %d iteration %d: escalation without question/options: %+v", run, n, d)
			}
			if d.Action.Continues() && d.Strategy == "" {
				t.Fatalf("run %d iteration %d: %s without a strategy", run, n, d.Action)
			}
			if d.Best != nil {
				if d.Best.Quality <= best {
					t.Fatalf("run %d iteration %d: best went from %.3f to %.3f", run, n, best, d.Best.Quality)
				}
				best = d.Best.Quality
			}
			if _, err := d.Document.YAML(); err != nil {
				t.Fatalf("document: %v", err)
			}
			if d.Escalation != nil {
				_ = d.Escalation.Report.Markdown()
			}
			record(st, ev, d)
			if !d.Action.Continues() {
				break
			}
		}
	}
}
