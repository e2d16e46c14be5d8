package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/prompt"
)

// Built-in defaults, the lowest tier.
const (
	DefaultProcedure        = "build"
	DefaultStateDir         = ".agentloop"
	DefaultFailureThreshold = 3
	DefaultFeedbackLength   = 500
	// DefaultGateTimeout is how long a gate may run when neither its own
	// timeout: nor limits.gate_timeout says: go test's own default, so that a
	// deadlocked test suite does not hold the loop forever.
	DefaultGateTimeout = 10 * time.Minute
	DefaultAgent       = "claude"
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
// merges and reports its sources like any other tier. Its defaults carry the
// build procedure's prompts, so a procedure of your own that names no prompt
// parts still tells the agent what to do.
func builtinYAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, `state_dir: %s
log_format: text
keep_awake: true
notify: {rate_limit_after: %s, timeout: %s, retries: %d}
defaults:
  agent: %s
  limits: {failure_threshold: %d, iteration_timeout: 1h, idle_timeout: 20m, gate_timeout: %s}
  feedback: {max_length: %d}
  baseline: true
  escalation: {on: [security, architecture, conflict, scope_creep], include_diff: true, max_diff_lines: 300}
  git: {checkpoint: true, commit: false, push: false}
`, DefaultStateDir, target.DefaultRateLimitAfter, target.DefaultTimeout, target.DefaultRetries,
		DefaultAgent, DefaultFailureThreshold, DefaultGateTimeout, DefaultFeedbackLength)
	builtins := prompt.Builtins()
	for _, p := range builtins {
		if p.Name == DefaultProcedure {
			writeParts(&b, "  ", p.Parts)
		}
	}
	b.WriteString("procedures:\n")
	for _, p := range builtins {
		fmt.Fprintf(&b, "  %s:\n    description: %s\n    limits: {max_iterations: %d}\n%s",
			p.Name, strconv.Quote(p.Description), BuiltinMaxIterations, builtinExtra(p.Name))
		writeParts(&b, "    ", p.Parts)
	}
	return b.String()
}

// writeParts writes a prompt: mapping of embedded parts.
func writeParts(b *strings.Builder, indent string, parts prompt.Parts) {
	b.WriteString(indent + "prompt:\n")
	for _, part := range []struct {
		k string
		p prompt.Part
	}{{"preamble", parts.Preamble}, {"observe", parts.Observe}, {"orient", parts.Orient}, {"decide", parts.Decide}, {"act", parts.Act}} {
		if part.p.File != "" {
			fmt.Fprintf(b, "%s  %s: %s\n", indent, part.k, strconv.Quote(part.p.File))
		}
	}
}
