package app

import (
	"io"

	"github.com/agentloop/agentloop/internal/gate"
)

// FeedbackOptions are how `agentloop feedback` judges a gate's saved output.
type FeedbackOptions = gate.FeedbackOptions

// Feedback reads a gate's saved output from r, judges it the way a loop does
// and writes the feedback the agent would get (or the judged result) to w.
func Feedback(r io.Reader, w io.Writer, o FeedbackOptions) error {
	return gate.FeedbackCommand(r, w, o)
}

// FeedbackFormats are the gate output formats feedback reads.
func FeedbackFormats() []string { return gate.Formats() }
