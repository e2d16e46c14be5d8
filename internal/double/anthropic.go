package double

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// anthropic is the Anthropic Messages API (/v1/messages).
type anthropic struct{}

func (anthropic) name() string { return "anthropic" }

func (anthropic) parse(body []byte, _ *http.Request) (*request, error) {
	var in struct {
		conversation
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	req := &request{api: "anthropic", model: in.Model, stream: in.Stream}
	for _, t := range in.Tools {
		req.tools = append(req.tools, tool{name: t.Name})
	}
	for i, m := range in.Messages {
		if m.Role == "assistant" {
			req.replies++
		}
		if i == 0 {
			req.first = text(m.Content)
		}
		req.last = text(m.Content)
	}
	return req, nil
}

func (anthropic) usage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":                max(u.Input-u.Cached-u.CacheWrite, 0),
		"output_tokens":               u.Output,
		"cache_read_input_tokens":     u.Cached,
		"cache_creation_input_tokens": u.CacheWrite,
	}
}

func (a anthropic) blocks(rep reply) []map[string]any {
	var out []map[string]any
	if rep.text != "" {
		out = append(out, map[string]any{"type": "text", "text": rep.text})
	}
	for _, c := range rep.calls {
		out = append(out, map[string]any{"type": "tool_use", "id": "toolu_" + c.id, "name": c.name, "input": c.argsObject()})
	}
	return out
}

func stopReason(rep reply, tool, end string) string {
	if len(rep.calls) > 0 {
		return tool
	}
	return end
}

func (a anthropic) whole(rep reply) any {
	return map[string]any{
		"id": "msg_" + rep.id, "type": "message", "role": "assistant", "model": rep.model,
		"content": a.blocks(rep), "stop_reason": stopReason(rep, "tool_use", "end_turn"),
		"stop_sequence": nil, "usage": a.usage(rep.usage),
	}
}

func (a anthropic) stream(rep reply) []frame {
	start := a.usage(rep.usage)
	start["output_tokens"] = 1
	fs := []frame{ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_" + rep.id, "type": "message", "role": "assistant", "model": rep.model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": start,
	}})}
	for i, b := range a.blocks(rep) {
		switch b["type"] {
		case "text":
			fs = append(fs, ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}}))
			for _, d := range split(rep.text) {
				fs = append(fs, ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": d}}))
			}
		case "tool_use":
			fs = append(fs, ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}}))
			in, _ := json.Marshal(b["input"])
			for _, d := range split(string(in)) {
				fs = append(fs, ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": d}}))
			}
		}
		fs = append(fs, ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i}))
	}
	return append(fs,
		ev("message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stopReason(rep, "tool_use", "end_turn"), "stop_sequence": nil},
			"usage": a.usage(rep.usage)}),
		ev("message_stop", map[string]any{"type": "message_stop"}))
}

func (anthropic) errorReply(h http.Header, status, _ int, msg string) any {
	kind, def := "api_error", "Internal server error"
	switch status {
	case 400:
		kind, def = "invalid_request_error", "Invalid request"
	case 401:
		kind, def = "authentication_error", "invalid x-api-key"
	case 403:
		kind, def = "permission_error", "Your API key does not have permission to use the specified resource."
	case 404:
		kind, def = "not_found_error", "Not found"
	case 429:
		kind, def = "rate_limit_error", "This request would exceed the rate limit for your organization. Please try again later."
	case 529:
		kind, def = "overloaded_error", "Overloaded"
	}
	h.Set("request-id", "req_double")
	return map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": cmp.Or(msg, def)}, "request_id": "req_double"}
}

// usageLimit is what the API answers a Claude subscription whose usage limit
// is reached: a 429 whose unified rate-limit headers say rejected, which
// limit and when it resets (Claude Code prints "You've hit your session
// limit · resets 3pm (Europe/Paris)" from them).
func (a anthropic) usageLimit(h http.Header, reset time.Time, retryAfter int, msg string) any {
	at := fmt.Sprint(reset.Unix())
	h.Set("anthropic-ratelimit-unified-status", "rejected")
	h.Set("anthropic-ratelimit-unified-reset", at)
	h.Set("anthropic-ratelimit-unified-representative-claim", "five_hour")
	h.Set("anthropic-ratelimit-unified-5h-status", "rejected")
	h.Set("anthropic-ratelimit-unified-5h-utilization", "1.0")
	h.Set("anthropic-ratelimit-unified-5h-reset", at)
	h.Set("retry-after", fmt.Sprint(retryAfter))
	return a.errorReply(h, http.StatusTooManyRequests, retryAfter, msg)
}

func (anthropic) countKey() string { return "input_tokens" }
