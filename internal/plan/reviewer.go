package plan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentloop/agentloop/internal/agent"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/gate"
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/prompt"
	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/review"
)

// ReviewerAgent is the [loop.Reviewer] that asks a reviewer agent, through the
// review protocol.
type ReviewerAgent struct {
	Runner      *agent.Runner
	Agent       agent.Preset
	Timeout     time.Duration // per round
	IdleTimeout time.Duration
	MaxRounds   int           // 0: 3
	Template    prompt.Part   // the reviewer's own prompt template; zero: the built-in one
	WorkDir     string        // where a template file is read from
	Sandbox     agent.Sandbox // nil: the reviewer runs as it is
}

// Review implements [loop.Reviewer]: the reviewer agent gets the task, the diff and
// the gate results and must answer with the verdict JSON; an unparseable answer
// is asked again once, then the verdict is unknown.
func (r *ReviewerAgent) Review(ctx context.Context, req loop.ReviewRequest) (evidence.Review, error) {
	var usage evidence.Usage
	round := 0
	ask := func(ctx context.Context, prompt string) (string, error) {
		round++
		res, err := r.Runner.Run(ctx, agent.Request{
			Preset: r.Agent, Prompt: prompt, Dir: req.WorkDir, IterDir: req.IterDir,
			LogPath: reviewLog(req.IterDir, round),
			Timeout: r.Timeout, IdleTimeout: r.IdleTimeout, Sandbox: r.Sandbox,
		})
		usage = usage.Add(res.Usage)
		if err != nil {
			return "", err
		}
		if se := agent.NewSetupError("reviewer", res); se != nil {
			return "", se
		}
		if res.Failed() {
			return "", fmt.Errorf("reviewer %s %s", r.Agent.Name, res.Summary())
		}
		return reviewText(res), nil
	}
	in := review.Input{Task: req.Task, Diff: req.Diff, Gates: req.Gates, OutsideTask: outsideTask(req.Gates, req.OutsideTask), Round: req.Iteration, MaxRounds: r.maxRounds()}
	if !r.Template.IsZero() {
		tmpl, err := r.Template.Content(prompt.FileReader(r.WorkDir))
		if err != nil {
			return evidence.Review{}, fmt.Errorf("reviewer prompt: %w", err)
		}
		in.Template = tmpl
	}
	v, err := review.Review(ctx, ask, in)
	v.Usage = usage
	return redactReview(r.Runner.Redactor(r.Agent, nil), v), err
}

// outsideTask are the gates' failures there before the run whose keys are
// outside the task, by gate name, for the reviewer's prompt (nil: none).
func outsideTask(gates []evidence.GateResult, keys []string) map[string][]evidence.Finding {
	var out map[string][]evidence.Finding
	for _, g := range gates {
		for _, f := range g.Preexisting {
			if slices.Contains(keys, gate.Key(f)) {
				if out == nil {
					out = map[string][]evidence.Finding{}
				}
				out[g.Name] = append(out[g.Name], f)
			}
		}
	}
	return out
}

// redactReview returns v with the secrets of its texts replaced: the
// reviewer's answer was redacted as it streamed and once its CLI's stream
// was decoded, but the verdict JSON in it is decoded again, and a secret it
// escaped (a quote as \", & as \u0026) comes out whole in a finding, the
// summary or a reason quoted from the answer.
func redactReview(red *redact.Redactor, v evidence.Review) evidence.Review {
	v.Summary = red.String(v.Summary)
	v.Tags = slices.Clone(v.Tags)
	for i, t := range v.Tags {
		v.Tags[i] = red.String(t)
	}
	v.Findings = slices.Clone(v.Findings)
	for i := range v.Findings {
		f := &v.Findings[i]
		f.ID, f.File, f.Message, f.FixHint = red.String(f.ID), red.String(f.File), red.String(f.Message), red.String(f.FixHint)
	}
	return v
}

// reviewLog is the transcript of a review's round in the attempt's folder.
func reviewLog(iterDir string, round int) string {
	return filepath.Join(iterDir, fmt.Sprintf("review-%d.log", round))
}

// ReviewUsage implements [loop.ReviewTranscriptReader]: the rounds' saved
// transcripts in iterDir, read with the reviewer's own parser and priced as
// its runs are.
func (r *ReviewerAgent) ReviewUsage(iterDir string) evidence.Usage {
	run := r.Runner
	if run == nil {
		run = &agent.Runner{}
	}
	var u evidence.Usage
	for round := 1; ; round++ {
		p := reviewLog(iterDir, round)
		if _, err := os.Stat(p); err != nil {
			return u
		}
		u = u.Add(run.TranscriptUsage(r.Agent, p))
	}
}

func (r *ReviewerAgent) maxRounds() int {
	if r.MaxRounds > 0 {
		return r.MaxRounds
	}
	return 3
}

// reviewText is what the reviewer answered: its final result, or for a plain
// text CLI the tail of its output.
func reviewText(res evidence.AgentResult) string {
	if res.Result != "" {
		return res.Result
	}
	return res.Tail
}
