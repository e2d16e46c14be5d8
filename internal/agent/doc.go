// Package agent owns how agentloop talks to AI coding CLIs: the presets (how to
// start claude, codex, gemini, … headless), the stream parsers that read usage,
// cost, the final answer and rate-limit signals from each CLI's machine-readable
// output while it runs, the price table used when a CLI reports no cost, the
// classification of a finished run (ok, failed, rate limited, transient) with its
// backoff, and the [Runner] that starts one agent process per iteration.
//
// Example:
//
//	p, _ := agent.Lookup("claude")
//	argv, stdin := p.Command("fix the tests", "")
//	parser, _ := agent.NewParser(p.Format)
//	for _, line := range lines {
//		parser.Line(line)
//	}
//	out := parser.Result() // out.Usage, out.Terminal, out.RateLimited, …
package agent
