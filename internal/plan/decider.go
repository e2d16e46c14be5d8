package plan

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/decide"
	"github.com/agentloop/agentloop/internal/state"
)

// NewDecider builds the decision engine from the procedure's policy: the
// defaults, then the procedure's `policy:` keys (strictly: an unknown key is an
// error), then the settings that live elsewhere in the procedure.
func NewDecider(p *Plan) (state.Decider, error) {
	pol, err := Policy(p)
	if err != nil {
		return nil, err
	}
	return decide.New(pol), nil
}

// Policy is the decision engine's policy of the plan's procedure, as plain data
// (an engine that runs the decider elsewhere hands it on).
func Policy(p *Plan) (decide.Policy, error) {
	pol := decide.DefaultPolicy()
	if len(p.Proc.Policy) > 0 {
		b, err := yaml.Marshal(p.Proc.Policy)
		if err != nil {
			return decide.Policy{}, fmt.Errorf("procedure %s: policy: %w", p.Proc.Name, err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&pol); err != nil {
			return decide.Policy{}, fmt.Errorf("procedure %s: policy: %w", p.Proc.Name, err)
		}
	}
	if n := p.Proc.Feedback.MaxLength; n > 0 {
		pol.FeedbackMaxLength = n
	}
	for _, g := range p.Gates {
		if g.MaxFeedback > 0 {
			if pol.GateFeedbackMaxLength == nil {
				pol.GateFeedbackMaxLength = map[string]int{}
			}
			pol.GateFeedbackMaxLength[g.Name] = g.MaxFeedback
		}
	}
	if len(p.Proc.Escalation.On) > 0 {
		pol.EscalateOn = p.Proc.Escalation.On
	}
	for _, a := range p.Fallback {
		pol.Fallback = append(pol.Fallback, a.Name)
	}
	if p.Proc.Reviewer != nil && p.Proc.Reviewer.MaxRounds > 0 {
		pol.MaxReviewRounds = p.Proc.Reviewer.MaxRounds
	}
	pol.MaxIterations = p.Proc.Limits.MaxIterations
	return pol, nil
}
