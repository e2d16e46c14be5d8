package double

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// responses is the OpenAI Responses API (/v1/responses).
type responses struct{}

func (responses) name() string { return "responses" }

func (responses) parse(body []byte, _ *http.Request) (*request, error) {
	var in struct {
		Model  string          `json:"model"`
		Stream bool            `json:"stream"`
		Input  json.RawMessage `json:"input"`
		Tools  []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
		Text struct {
			Format struct {
				Type string `json:"type"`
			} `json:"format"`
		} `json:"text"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	req := &request{api: "responses", model: in.Model, stream: in.Stream, json: in.Text.Format.Type == "json_schema"}
	for _, t := range in.Tools {
		if t.Name != "" {
			req.tools = append(req.tools, tool{name: t.Name, custom: t.Type == "custom"})
		} else if t.Type != "" {
			req.tools = append(req.tools, tool{name: t.Type})
		}
	}
	var s string
	if json.Unmarshal(in.Input, &s) == nil {
		req.first, req.last = s, s
		return req, nil
	}
	var items []map[string]any
	if err := json.Unmarshal(in.Input, &items); err != nil {
		return nil, fmt.Errorf("input is neither a string nor a list of items: %w", err)
	}
	inReply := false
	for _, it := range items {
		typ, _ := it["type"].(string)
		role, _ := it["role"].(string)
		model := role == "assistant" || typ == "function_call" || typ == "custom_tool_call" ||
			typ == "reasoning" || typ == "local_shell_call"
		if model && !inReply {
			req.replies++
		}
		inReply = model
		if model {
			continue
		}
		t := text(it)
		if role == "user" && req.first == "" {
			req.first = t
		}
		if t != "" {
			req.last = t
		}
	}
	return req, nil
}

func (responses) usage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.Input,
		"input_tokens_details":  map[string]any{"cached_tokens": u.Cached},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":          u.Input + u.Output,
	}
}

func (responses) items(rep reply) []map[string]any {
	var out []map[string]any
	if rep.text != "" {
		out = append(out, map[string]any{"type": "message", "id": "msg_" + rep.id, "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": rep.text, "annotations": []any{}}}})
	}
	for _, c := range rep.calls {
		if c.custom != "" {
			out = append(out, map[string]any{"type": "custom_tool_call", "id": "ctc_" + c.id, "call_id": c.id,
				"name": c.name, "input": c.custom, "status": "completed"})
			continue
		}
		out = append(out, map[string]any{"type": "function_call", "id": "fc_" + c.id, "call_id": c.id,
			"name": c.name, "arguments": jsonArgs(c.args), "status": "completed"})
	}
	return out
}

func (r responses) response(rep reply, status string, output []map[string]any) map[string]any {
	m := map[string]any{"id": "resp_" + rep.id, "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": rep.model, "output": output}
	if output == nil {
		m["output"] = []any{}
	}
	if status == "completed" {
		m["usage"] = r.usage(rep.usage)
	}
	return m
}

func (r responses) whole(rep reply) any { return r.response(rep, "completed", r.items(rep)) }

func (r responses) stream(rep reply) []frame {
	seq := 0
	e := func(typ string, fields map[string]any) frame {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return ev(typ, fields)
	}
	fs := []frame{
		e("response.created", map[string]any{"response": r.response(rep, "in_progress", nil)}),
		e("response.in_progress", map[string]any{"response": r.response(rep, "in_progress", nil)}),
	}
	items := r.items(rep)
	for i, it := range items {
		id, _ := it["id"].(string)
		switch it["type"] {
		case "message":
			fs = append(fs,
				e("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
					"type": "message", "id": id, "status": "in_progress", "role": "assistant", "content": []any{}}}),
				e("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0,
					"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}}))
			for _, d := range split(rep.text) {
				fs = append(fs, e("response.output_text.delta", map[string]any{"item_id": id, "output_index": i,
					"content_index": 0, "delta": d}))
			}
			fs = append(fs,
				e("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": rep.text}),
				e("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0,
					"part": map[string]any{"type": "output_text", "text": rep.text, "annotations": []any{}}}))
		case "function_call":
			added := map[string]any{}
			for k, v := range it {
				added[k] = v
			}
			added["arguments"], added["status"] = "", "in_progress"
			args, _ := it["arguments"].(string)
			fs = append(fs, e("response.output_item.added", map[string]any{"output_index": i, "item": added}))
			for _, d := range split(args) {
				fs = append(fs, e("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": d}))
			}
			fs = append(fs, e("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": args}))
		default:
			fs = append(fs, e("response.output_item.added", map[string]any{"output_index": i, "item": it}))
		}
		fs = append(fs, e("response.output_item.done", map[string]any{"output_index": i, "item": it}))
	}
	return append(fs, e("response.completed", map[string]any{"response": r.response(rep, "completed", items)}))
}

func (responses) errorReply(h http.Header, status, retryAfter int, msg string) any {
	return openaiError(h, status, retryAfter, msg)
}

// usageLimit is what ChatGPT's Codex backend answers an account whose usage
// limit is reached: a 429 whose error is usage_limit_reached with the reset
// time, and the primary window's headers (Codex prints "You've hit your usage
// limit. … try again at 3:05 PM." from them).
func (responses) usageLimit(h http.Header, reset time.Time, retryAfter int, msg string) any {
	h.Set("x-codex-primary-used-percent", "100")
	h.Set("x-codex-primary-window-minutes", "300")
	h.Set("x-codex-primary-reset-at", fmt.Sprint(reset.Unix()))
	h.Set("x-codex-primary-reset-after-seconds", fmt.Sprint(retryAfter))
	return map[string]any{"error": map[string]any{"type": "usage_limit_reached", "message": cmp.Or(msg, "The usage limit has been reached"),
		"plan_type": "plus", "resets_at": reset.Unix(), "resets_in_seconds": retryAfter}}
}

func (responses) countKey() string { return "input_tokens" }

// openaiError is an error in the shape both OpenAI APIs use.
func openaiError(h http.Header, status, retryAfter int, msg string) any {
	kind, code, def := "server_error", "server_error", "The server had an error while processing your request."
	switch status {
	case 400:
		kind, code, def = "invalid_request_error", "invalid_request", "Invalid request."
	case 401:
		kind, code, def = "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-doub*****. You can find your API key at https://platform.openai.com/account/api-keys."
	case 403:
		kind, code, def = "invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported."
	case 404:
		kind, code, def = "invalid_request_error", "model_not_found", "The model does not exist or you do not have access to it."
	case 429:
		kind, code, def = "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again later."
	case 503, 529:
		kind, code, def = "server_error", "overloaded", "The engine is currently overloaded, please try again later."
	}
	if status == 429 && retryAfter > 0 {
		def = fmt.Sprintf("Rate limit reached for requests. Please try again in %ds.", retryAfter)
		h.Set("x-ratelimit-reset-requests", fmt.Sprintf("%ds", retryAfter))
	}
	return map[string]any{"error": map[string]any{"message": cmp.Or(msg, def), "type": kind, "param": nil, "code": code}}
}
