package state

import (
	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/decision"

	"slices"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Fold folds an iteration's evidence, its step's result and the decision
// on it into the state, as the loop does after each iteration: the one rule
// for what a state remembers of an iteration, for the loop and for whoever
// replays iterations through a [Decider] (`agentloop decide`).
func (st *State) Fold(ev evidence.Iteration, seq int, res StepResult, d Decision) {
	st.Iteration = ev.N
	st.TotalIterations++
	st.LastIterationAt = ev.Finished
	st.Count(ev.Started, ev.Finished, res.Paused)
	st.Spend.Waited += MillisOf(res.Waited)
	st.Spend.Usage = st.Spend.Usage.Add(ev.Agent.Usage)
	if ev.Review != nil {
		st.Spend.Reviewer = st.Spend.Reviewer.Add(ev.Review.Usage)
	}
	if d.Succeeded {
		st.ConsecutiveFailures = 0
	} else {
		st.ConsecutiveFailures++
	}
	if len(st.Sessions) > 0 {
		st.Sessions[len(st.Sessions)-1].Iterations++
	}
	st.History = append(st.History, newRecord(ev, seq, st.Segment, res, d))
	st.LastDecision = string(d.Action)
	st.Feedback = d.Feedback
	st.Next = d.Next
	if res.Checkpoint != "" {
		st.Tree = res.Checkpoint
	}
	if d.Best != nil {
		best := *d.Best
		if best.Ref == "" {
			best.Ref = res.Checkpoint
		}
		if best.Seq == 0 && best.Iteration == ev.N {
			best.Seq = seq
		}
		// A best checkpoint is a commit to go back to: an iteration whose
		// checkpoint failed (git's error, a signal) is never the best. Outside
		// git, where no attempt has checkpoints, the best is only named.
		if best.Ref != "" || res.Start == "" {
			st.Best = &best
		}
	}
}

func newRecord(ev evidence.Iteration, seq, segment int, res StepResult, d Decision) Record {
	rec := Record{
		N: ev.N, Seq: seq, Segment: segment, Attempt: d.Next.Attempt, StartedAt: ev.Started, Duration: MillisOf(ev.Duration()),
		Succeeded: d.Succeeded, AgentExit: ev.Agent.ExitCode, AgentReason: ev.Agent.Reason,
		Usage: ev.Agent.Usage, Failing: d.Failing, OutsideTask: d.OutsideTask, Fingerprint: d.Fingerprint,
		DiffHash: ev.Diff.Hash, TreeHash: ev.Diff.TreeHash, DiffLines: ev.Diff.Added + ev.Diff.Deleted,
		Quality: d.Quality, Decision: string(d.Action), Strategy: d.Strategy, Triggers: decision.TriggerIDs(d.Triggers),
		Summary: d.Message, Checkpoint: res.Checkpoint,
	}
	for _, g := range ev.Gates {
		rec.Gates = append(rec.Gates, SummarizeGate(g))
	}
	if ev.Review != nil {
		rec.Review = ev.Review.Verdict
		rec.ReviewScore = ev.Review.Score
		rec.ReviewUsage = ev.Review.Usage
	}
	return rec
}

// SummarizeGate is what a record keeps of a gate's result.
func SummarizeGate(g evidence.GateResult) GateSummary {
	gs := GateSummary{Name: g.Name, Required: g.Required, Passed: g.Passed, Infra: g.Infra, ExitCode: g.ExitCode, Failures: len(g.Findings),
		OutputProblems: g.OutputProblems(), RerunNote: g.RerunNote}
	for _, fs := range [][]evidence.Finding{g.Findings, g.Preexisting} {
		for _, f := range fs {
			if f.Key != "" {
				gs.Keys = append(gs.Keys, f.Key)
			}
		}
	}
	slices.Sort(gs.Keys)
	return gs
}

// RecoveredFinished rebuilds the "iteration finished" event of a recorded
// iteration. The loop saves the state before it writes the event, so a crash
// between the two leaves an iteration the state records and the event log
// lacks; the next session writes it from the record (marked Recovered), and the
// log again has each iteration finished exactly once.
func RecoveredFinished(rec Record, limits budget.Limits) Event {
	return Event{
		Time:      rec.StartedAt.Add(rec.Duration.Duration()),
		Iteration: rec.N,
		Data: IterationFinished{
			MaxIterations: limits.MaxIterations, Duration: rec.Duration, Succeeded: rec.Succeeded,
			FailureThreshold: limits.FailureThreshold, Action: Action(rec.Decision), Strategy: rec.Strategy,
			Message: rec.Summary, Quality: rec.Quality, Triggers: rec.Triggers,
			AgentExit: rec.AgentExit, AgentReason: rec.AgentReason,
			CostUSD: rec.Usage.CostUSD, CostKnown: rec.Usage.CostKnown, Tokens: rec.Usage.TotalTokens(), TokensKnown: rec.Usage.TokensKnown,
			Review: rec.Review, ReviewScore: rec.ReviewScore, Recovered: true,
		},
	}
}
