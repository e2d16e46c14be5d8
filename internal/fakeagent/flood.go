package fakeagent

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// floods are the output shapes of the flood actions, for the benchmarks of
// agentloop's output path.
var floods = map[string]func(io.Writer, int64) error{
	"flood":        flood,
	"flood-raw":    floodRaw,
	"flood-deltas": floodDeltas,
}

// flood writes n bytes of text lines to w in 64 KiB chunks.
func flood(w io.Writer, n int64) error {
	return repeat(w, n, bytes.Repeat([]byte("flood flood flood flood flood flood flood flood flood flood flood\n"), 1024)[:64<<10])
}

// floodRaw writes n bytes without a newline to w in 64 KiB chunks.
func floodRaw(w io.Writer, n int64) error {
	return repeat(w, n, bytes.Repeat([]byte("flood "), 11<<10)[:64<<10])
}

func repeat(w io.Writer, n int64, chunk []byte) error {
	for n > 0 {
		k := min(n, int64(len(chunk)))
		if _, err := w.Write(chunk[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// deltasPerMessage is how many text deltas make one assistant message.
const deltasPerMessage = 100

// floodDeltas writes about n bytes of what Claude Code prints with
// --include-partial-messages: an init record, then per message a
// message_start, deltas of a few words each, the assembled assistant message
// with its usage and a message_stop; a result record ends it. Each message
// uses 10 input and 100 output tokens, so the run's usage is known exactly.
func floodDeltas(w io.Writer, n int64) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	c := &countWriter{w: bw}
	const session = "fa0e0000-0000-4000-8000-000000000000"
	fmt.Fprintf(c, `{"type":"system","subtype":"init","session_id":%q,"model":"claude-sonnet-4-5","tools":["Bash","Edit"]}`+"\n", session)
	msgs := 0
	for c.n < n && c.err == nil {
		id := fmt.Sprintf("msg_%08d", msgs)
		fmt.Fprintf(c, `{"type":"stream_event","event":{"type":"message_start","message":{"id":%q,"model":"claude-sonnet-4-5","role":"assistant","usage":{"input_tokens":10,"output_tokens":1}}},"session_id":%q,"parent_tool_use_id":null,"uuid":"u-%d-s"}`+"\n", id, session, msgs)
		for d := 0; d < deltasPerMessage; d++ {
			fmt.Fprintf(c, `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me look at the failing test %d and the code it calls. "}},"session_id":%q,"parent_tool_use_id":null,"uuid":"u-%d-%d"}`+"\n", d, session, msgs, d)
		}
		fmt.Fprintf(c, `{"type":"assistant","message":{"id":%q,"type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done with step %d."}],"usage":{"input_tokens":10,"output_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"parent_tool_use_id":null,"session_id":%q}`+"\n", id, msgs, session)
		fmt.Fprintf(c, `{"type":"stream_event","event":{"type":"message_stop"},"session_id":%q,"parent_tool_use_id":null,"uuid":"u-%d-e"}`+"\n", session, msgs)
		msgs++
	}
	fmt.Fprintf(c, `{"type":"result","subtype":"success","is_error":false,"num_turns":%d,"result":"done","session_id":%q,"usage":{"input_tokens":%d,"output_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`+"\n",
		msgs, session, 10*msgs, 100*msgs)
	if c.err != nil {
		return c.err
	}
	return bw.Flush()
}

// countWriter counts what it passes on and keeps the first error.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}
