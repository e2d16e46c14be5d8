package agent_test

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/agent"
)

func ExampleNewParser() {
	p, _ := agent.Lookup("codex")
	parser, _ := agent.NewParser(p.Format)
	for _, line := range []string{
		`{"type":"thread.started","thread_id":"t-1"}`,
		`warning: not JSON, skipped`,
		`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"done"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":600,"output_tokens":50}}`,
	} {
		parser.Line([]byte(line))
	}
	out := parser.Result()
	u := agent.Estimate(out.Usage, agent.Prices{Default: agent.Price{Input: 1, Output: 10, CacheRead: 0.1}})
	fmt.Println(out.Terminal, out.Result, u.InputTokens, u.CacheReadTokens, u.OutputTokens)
	fmt.Printf("$%.6f estimated=%v\n", u.CostUSD, u.CostEstimated)
	// Output:
	// true done 400 600 50
	// $0.000960 estimated=true
}

func ExamplePreset_Command() {
	p, _ := agent.Lookup("claude")
	argv, stdin := p.Command("Fix the failing test.", "")
	fmt.Println(argv)
	fmt.Println(stdin)
	// Output:
	// [claude -p --output-format stream-json --verbose --dangerously-skip-permissions]
	// Fix the failing test.
}
