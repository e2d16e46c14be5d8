package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentloop/agentloop/internal/redact"
	"github.com/agentloop/agentloop/internal/textcut"
)

// narrateWidth is how many characters of a text or a tool call's input a
// narrated line keeps.
const narrateWidth = 160

// narrator turns the lines of a CLI's JSON stream into one readable line per
// assistant text and per tool call ("agent: …", "tool Bash: go test ./..."),
// for -v: the stream itself is in the attempt's agent.log. A line that is not
// JSON is passed on as it is; other records (usage, results, tool output) are
// left out. A message Gemini streams in pieces is joined into one line, said
// when the next record comes.
type narrator struct {
	format  string
	pending strings.Builder // a message still being streamed
	// red redacts what the narrator decoded from the stream before it is
	// cut ([narrator.oneLine]): the stream's own redaction saw it escaped (a
	// quote as \", & as \u0026) and may have missed a secret in it.
	red *redact.Redactor
	// raw: a line passed on as it is (not a record, or one that does not
	// decode) is told, as with -v; without, only records are of use.
	raw bool
}

// newNarrator returns the narrator of format's stream, nil when the format is
// not one it reads (its output is echoed as it is).
func newNarrator(format string) *narrator {
	switch format {
	case FormatClaudeStream, FormatAmpStream, FormatQwenStream, FormatCursorStream,
		FormatCodex, FormatGeminiStream, FormatOpencode, FormatCopilot, FormatGoose:
		return &narrator{format: format}
	}
	return nil
}

// record is the part of every format's records the narrator reads.
type record struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	Role    string `json:"role"`
	Content json.RawMessage
	Message *struct {
		Role    string `json:"role"`
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	} `json:"message"`
	Item *struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Command string `json:"command"`
		Server  string `json:"server"`
		Tool    string `json:"tool"`
		Changes []struct {
			Path string `json:"path"`
		} `json:"changes"`
	} `json:"item"`
	ToolName   string          `json:"tool_name"`
	Parameters json.RawMessage `json:"parameters"`
	Delta      bool            `json:"delta"`
	Part       *struct {
		Type  string `json:"type"`
		Text  string `json:"text"`
		Tool  string `json:"tool"`
		State struct {
			Input json.RawMessage `json:"input"`
		} `json:"state"`
	} `json:"part"`
	ToolCall map[string]struct {
		Args json.RawMessage `json:"args"`
	} `json:"tool_call"`
	Data *struct {
		Content   string          `json:"content"`
		ToolName  string          `json:"toolName"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"data"`
}

// said is one thing the narrator read in the stream: the agent's text, a
// tool call it started, or a line that is not JSON.
type said struct {
	tool bool   // a tool call: name and input
	raw  bool   // not a record: text is the line as it is
	name string // the tool's
	text string // the text, the tool call's input on one line, or the line
}

// String is the line -v shows ("agent: …", "tool Bash: go test ./...").
func (s said) String() string {
	switch {
	case s.raw:
		return s.text
	case !s.tool:
		return "agent: " + s.text
	case s.text == "":
		return "tool " + s.name + ":"
	}
	return "tool " + s.name + ": " + s.text
}

// Call is the tool call as the live status shows it ("Bash: go test ./...").
func (s said) Call() string {
	if s.text == "" {
		return s.name
	}
	return s.name + ": " + s.text
}

// Line returns what one line of the stream says.
func (n *narrator) Line(b []byte) []said {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	if b[0] == '{' && untold(b, !n.raw) {
		return n.Flush()
	}
	var r record
	if b[0] != '{' || json.Unmarshal(b, &r) != nil {
		return append(n.Flush(), said{raw: true, text: string(b)})
	}
	if n.format == FormatGeminiStream && r.Type == "message" && r.Role == "assistant" && r.Delta {
		var s string
		_ = json.Unmarshal(r.Content, &s)
		n.pending.WriteString(s)
		return nil
	}
	out := n.Flush()
	say := func(text string) {
		if t := n.oneLine(text); t != "" {
			out = append(out, said{text: t})
		}
	}
	tool := func(name string, input json.RawMessage) {
		out = append(out, said{tool: true, name: name, text: n.toolInput(input)})
	}
	switch {
	case r.Message != nil && r.Message.Role == "assistant" && (r.Type == "assistant" || r.Type == "message"):
		for _, c := range r.Message.Content {
			switch c.Type {
			case "text":
				say(c.Text)
			case "tool_use":
				tool(c.Name, c.Input)
			}
		}
	case r.Item != nil && r.Type == "item.started":
		switch r.Item.Type {
		case "command_execution":
			out = append(out, said{tool: true, name: "shell", text: n.oneLine(r.Item.Command)})
		case "mcp_tool_call":
			out = append(out, said{tool: true, name: r.Item.Server + "." + r.Item.Tool})
		}
	case r.Item != nil && r.Type == "item.completed":
		switch r.Item.Type {
		case "agent_message":
			say(r.Item.Text)
		case "file_change":
			var paths []string
			for _, c := range r.Item.Changes {
				paths = append(paths, c.Path)
			}
			out = append(out, said{tool: true, name: "edit", text: n.oneLine(strings.Join(paths, " "))})
		}
	case r.Type == "message" && r.Role == "assistant":
		var s string
		_ = json.Unmarshal(r.Content, &s)
		say(s)
	case r.Type == "tool_use" && r.ToolName != "":
		tool(r.ToolName, r.Parameters)
	case r.Part != nil && r.Type == "text":
		say(r.Part.Text)
	case r.Part != nil && r.Type == "tool_use":
		tool(r.Part.Tool, r.Part.State.Input)
	case r.Type == "tool_call" && r.Subtype == "started":
		for name, c := range r.ToolCall {
			tool(strings.TrimSuffix(name, "ToolCall"), c.Args)
		}
	case r.Data != nil && r.Type == "assistant.message": // whole, after its pieces (assistant.message_delta)
		say(r.Data.Content)
	case r.Data != nil && r.Type == "tool.execution_start":
		tool(r.Data.ToolName, r.Data.Arguments)
	}
	return out
}

// Flush returns the text of a message still being streamed, if any.
func (n *narrator) Flush() []said {
	if n.pending.Len() == 0 {
		return nil
	}
	t := n.oneLine(n.pending.String())
	n.pending.Reset()
	if t == "" {
		return nil
	}
	return []said{{text: t}}
}

// toolInput is a tool call's input on one line: the value that says what it
// does (a command, a path, a pattern) when it has one, else its JSON.
func (n *narrator) toolInput(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil {
		for _, k := range []string{"command", "cmd", "file_path", "filePath", "path", "pattern", "query", "url", "description", "prompt"} {
			switch v := m[k].(type) {
			case string:
				return n.oneLine(v)
			case []any:
				parts := make([]string, 0, len(v))
				for _, p := range v {
					parts = append(parts, fmt.Sprint(p))
				}
				return n.oneLine(strings.Join(parts, " "))
			}
		}
	}
	return n.oneLine(string(raw))
}

// oneLine is s redacted, on one line, cut to narrateWidth characters: cut
// first, a secret could be left in part.
func (n *narrator) oneLine(s string) string {
	return textcut.Runes(textcut.Line(n.red.String(s)), narrateWidth)
}

// narrateTo is the writer a CLI's stdout goes through to be told: on w (-v),
// the narrator's lines for a stream it reads, the output as it is otherwise;
// to onTool, the tool call the agent started last (see [said.Call]), "" once
// it writes text again, each time that changes, what it decoded redacted by
// red. Close says what is still pending. It is nil when there is nothing to
// tell.
func narrateTo(w io.Writer, format string, maxLine int, red *redact.Redactor, onTool func(string)) io.WriteCloser {
	n := newNarrator(format)
	if w != nil && isNilWriter(w) {
		w = nil
	}
	switch {
	case n == nil && w == nil:
		return nil
	case n == nil:
		return nopCloser{w}
	case w == nil && onTool == nil:
		return nil
	}
	n.red, n.raw = red, w != nil
	call := ""
	tell := func(s []said) {
		for _, l := range s {
			if w != nil {
				fmt.Fprintln(w, l)
			}
			if onTool == nil || l.raw {
				continue
			}
			c := ""
			if l.tool {
				c = l.Call()
			}
			if c != call {
				call = c
				onTool(c)
			}
		}
	}
	lines := newLines(format, maxLine, func(b []byte) { tell(n.Line(b)) })
	return &narrating{lines: lines, flush: func() { tell(n.Flush()) }}
}

type narrating struct {
	lines io.WriteCloser
	flush func()
}

func (n *narrating) Write(p []byte) (int, error) { return n.lines.Write(p) }

func (n *narrating) Close() error {
	err := n.lines.Close()
	n.flush()
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
