package agent

import (
	"fmt"
	"io"
	"strings"
)

// WriteSyntheticClaudeStream writes a Claude stream-json transcript of about
// size bytes (for benchmarks): repeated turns of an assistant message whose
// usage is repeated per content block, a large tool result and system noise,
// then a result record. It returns the number of distinct assistant messages.
func WriteSyntheticClaudeStream(w io.Writer, size int64) (messages int, err error) {
	toolOut := strings.Repeat(`ok  \tgithub.com/x/y/pkg\t0.012s\n--- FAIL: TestZ (0.00s)\n    z_test.go:12: got \"a\", want \"b\"\n`, 180)
	thinking := strings.Repeat("Let me look at the failing test and the code it exercises. ", 30)
	var written int64
	emit := func(format string, args ...any) {
		if err != nil {
			return
		}
		var n int
		n, err = fmt.Fprintf(w, format+"\n", args...)
		written += int64(n)
	}
	emit(`{"type":"system","subtype":"init","cwd":"/work","session_id":"bench-session","tools":["Bash","Edit","Read"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"bypassPermissions"}`)
	for i := 0; written < size && err == nil; i++ {
		usage := fmt.Sprintf(`{"input_tokens":%d,"output_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"service_tier":"standard"}`,
			10+i%7, 200+i%50, 300, 20000+i)
		emit(`{"type":"assistant","message":{"id":"msg_%08d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":%q,"signature":"EtYCCpMBCBAYAipA"}],"stop_reason":null,"usage":%s},"parent_tool_use_id":null,"session_id":"bench-session"}`, i, thinking, usage)
		emit(`{"type":"assistant","message":{"id":"msg_%08d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_%08d","name":"Bash","input":{"command":"go test ./..."}}],"stop_reason":null,"usage":%s},"parent_tool_use_id":null,"session_id":"bench-session"}`, i, i, usage)
		emit(`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%08d","type":"tool_result","content":%q,"is_error":false}]},"parent_tool_use_id":null,"session_id":"bench-session","tool_use_result":{"stdout":%q,"stderr":"","interrupted":false}}`, i, toolOut, toolOut)
		emit(`{"type":"system","subtype":"status","status":"requesting","session_id":"bench-session","uuid":"u-%d"}`, i)
		messages++
	}
	emit(`{"type":"result","subtype":"success","is_error":false,"num_turns":%d,"result":"done","session_id":"bench-session","total_cost_usd":12.5,"usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":3,"cache_read_input_tokens":4}}`, messages)
	return messages, err
}
