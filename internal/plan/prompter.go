package plan

import (
	"github.com/agentloop/agentloop/internal/loop"
	"github.com/agentloop/agentloop/internal/prompt"
)

// PromptComposer is the [loop.Prompter] of a procedure: its parts composed with the
// iteration's data, file paths read relative to the work tree.
type PromptComposer struct {
	Parts         prompt.Parts
	Procedure     string
	MaxIterations int
	WorkDir       string
	LogDir        string   // the run folder, so the agent can read full logs
	Gates         []string // gate commands, so the agent can run them itself
	Task          string
}

// Compose implements [loop.Prompter].
func (c *PromptComposer) Compose(r loop.StepRequest) (string, error) {
	return prompt.Compose(c.Parts, c.data(r), prompt.FileReader(c.WorkDir))
}

// HasTask implements [loop.Prompter].
func (c *PromptComposer) HasTask(r loop.StepRequest) bool {
	return prompt.HasTask(c.Parts, c.data(r), prompt.FileReader(c.WorkDir))
}

func (c *PromptComposer) data(r loop.StepRequest) prompt.Data {
	return prompt.Data{
		Procedure: c.Procedure, Iteration: r.Iteration, MaxIterations: c.MaxIterations,
		Attempt: r.Attempt, Feedback: r.Feedback, Guidance: r.Guidance, Steer: r.Steer, Strategy: r.Strategy,
		Focus: r.Focus, Lessons: r.Lessons, Expand: r.Expand, LogDir: c.LogDir,
		Task: c.Task, Gates: c.Gates, WorkDir: c.WorkDir,
	}
}
