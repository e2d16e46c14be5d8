package app

import (
	"context"
	"io"

	"github.com/agentloop/agentloop/internal/demo"
)

// PrepareDemo writes the demo's sample project into dir: its agent is self
// (this program's demo-agent), its gate goBin's go test; git says whether
// git is there to make it a repository. warnf says what could not be done.
func PrepareDemo(ctx context.Context, dir, self, goBin string, git bool, warnf func(format string, args ...any)) error {
	return demo.Prepare(ctx, dir, self, goBin, git, warnf)
}

// DemoAgent is the demo's scripted agent: it reads the prompt and fixes one
// failure of the project in wd, saying what it does on w.
func DemoAgent(prompt, wd string, w io.Writer) error { return demo.Agent(prompt, wd, w) }
