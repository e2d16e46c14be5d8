package double

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// chat is the OpenAI Chat Completions API (/v1/chat/completions).
type chat struct{}

func (chat) name() string { return "chat" }

func (chat) parse(body []byte, _ *http.Request) (*request, error) {
	var in struct {
		conversation
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		ResponseFormat struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	req := &request{api: "chat", model: in.Model, stream: in.Stream,
		json: in.ResponseFormat.Type == "json_object" || in.ResponseFormat.Type == "json_schema"}
	for _, t := range in.Tools {
		req.tools = append(req.tools, tool{name: t.Function.Name})
	}
	for _, m := range in.Messages {
		switch m.Role {
		case "assistant":
			req.replies++
		case "user":
			if req.first == "" {
				req.first = text(m.Content)
			}
			fallthrough
		case "tool":
			req.last = text(m.Content)
		}
	}
	return req, nil
}

func (chat) usage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.Cached},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
	}
}

func (chat) toolCalls(rep reply, stream bool) []any {
	var out []any
	for i, c := range rep.calls {
		tc := map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": jsonArgs(c.args)}}
		if stream {
			tc["index"] = i
		}
		out = append(out, tc)
	}
	return out
}

func (c chat) whole(rep reply) any {
	msg := map[string]any{"role": "assistant", "content": rep.text}
	if tc := c.toolCalls(rep, false); tc != nil {
		msg["tool_calls"] = tc
	}
	return map[string]any{"id": "chatcmpl-" + rep.id, "object": "chat.completion", "created": time.Now().Unix(),
		"model": rep.model, "choices": []any{map[string]any{"index": 0, "message": msg,
			"finish_reason": stopReason(rep, "tool_calls", "stop")}}, "usage": c.usage(rep.usage)}
}

func (c chat) stream(rep reply) []frame {
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) frame {
		return ev("", map[string]any{"id": "chatcmpl-" + rep.id, "object": "chat.completion.chunk", "created": created,
			"model": rep.model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	fs := []frame{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	if rep.text != "" {
		for _, d := range split(rep.text) {
			fs = append(fs, chunk(map[string]any{"content": d}, nil))
		}
	}
	if tc := c.toolCalls(rep, true); tc != nil {
		fs = append(fs, chunk(map[string]any{"tool_calls": tc}, nil))
	}
	fs = append(fs, chunk(map[string]any{}, stopReason(rep, "tool_calls", "stop")),
		ev("", map[string]any{"id": "chatcmpl-" + rep.id, "object": "chat.completion.chunk", "created": created,
			"model": rep.model, "choices": []any{}, "usage": c.usage(rep.usage)}))
	return append(fs, frame{data: []byte("[DONE]")})
}

func (chat) errorReply(h http.Header, status, retryAfter int, msg string) any {
	return openaiError(h, status, retryAfter, msg)
}

// usageLimit of a Chat Completions server is its 429 with the wait until the
// reset: the API has no usage-limit reply of its own.
func (c chat) usageLimit(h http.Header, _ time.Time, retryAfter int, msg string) any {
	h.Set("Retry-After", fmt.Sprint(retryAfter))
	return c.errorReply(h, http.StatusTooManyRequests, retryAfter, msg)
}

func (chat) countKey() string { return "input_tokens" }
