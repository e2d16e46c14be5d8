package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/prompt"
)

// Built-in defaults, the lowest tier.
const (
	DefaultProcedure        = "build"
	DefaultStateDir         = ".agentloop"
	DefaultFailureThreshold = 3
	DefaultFeedbackLength   = 500
	DefaultAgent            = "claude"
	// BuiltinMaxIterations is the max_iterations of the built-in procedures
	// (a procedure of your own that sets none runs until another limit stops it).
	BuiltinMaxIterations = 10
)

// builtinExtra are built-in procedures' settings beyond their prompts.
func builtinExtra(name string) string {
	switch name {
	case "fix-tests":
		// editing the tests is the one way to cheat at this task: ask a human
		return "    escalation: {on: [security, architecture, conflict, scope_creep, test_tampering]}\n"
	}
	return ""
}

// builtinYAML renders the built-in tier as a configuration file, so that it
// merges and reports its sources like any other tier.
func builtinYAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, `state_dir: %s
log_format: text
defaults:
  agent: %s
  limits: {failure_threshold: %d}
  feedback: {max_length: %d}
  baseline: true
  escalation: {on: [security, architecture, conflict, scope_creep], include_diff: true, max_diff_lines: 300}
  git: {checkpoint: true, commit: false, push: false}
procedures:
`, DefaultStateDir, DefaultAgent, DefaultFailureThreshold, DefaultFeedbackLength)
	for _, p := range prompt.Builtins() {
		fmt.Fprintf(&b, "  %s:\n    description: %s\n    limits: {max_iterations: %d}\n%s    prompt:\n",
			p.Name, strconv.Quote(p.Description), BuiltinMaxIterations, builtinExtra(p.Name))
		for _, part := range []struct {
			k string
			p prompt.Part
		}{{"preamble", p.Parts.Preamble}, {"observe", p.Parts.Observe}, {"orient", p.Parts.Orient}, {"decide", p.Parts.Decide}, {"act", p.Parts.Act}} {
			if part.p.File != "" {
				fmt.Fprintf(&b, "      %s: %s\n", part.k, strconv.Quote(part.p.File))
			}
		}
	}
	return b.String()
}
