package double

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// gemini is the Gemini API (/v1beta/models/{model}:generateContent and
// :streamGenerateContent?alt=sse).
type gemini struct{}

func (gemini) name() string { return "gemini" }

func (gemini) parse(body []byte, r *http.Request) (*request, error) {
	var in struct {
		Contents []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		GenerationConfig struct {
			ResponseMimeType string `json:"responseMimeType"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	p := r.URL.Path
	model := p[strings.LastIndex(p, "/models/")+len("/models/"):]
	model = model[:strings.LastIndex(model, ":")]
	req := &request{api: "gemini", model: model, stream: strings.HasSuffix(p, ":streamGenerateContent"),
		json: in.GenerationConfig.ResponseMimeType == "application/json"}
	for _, t := range in.Tools {
		for _, f := range t.FunctionDeclarations {
			req.tools = append(req.tools, tool{name: f.Name})
		}
	}
	inReply := false
	for _, c := range in.Contents {
		model := c.Role == "model"
		if model && !inReply {
			req.replies++
		}
		inReply = model
		if model {
			continue
		}
		var parts []any
		for _, p := range c.Parts {
			parts = append(parts, p)
		}
		t := text(parts)
		if req.first == "" {
			req.first = t
		}
		req.last = t
	}
	return req, nil
}

func (gemini) usage(u Usage) map[string]any {
	return map[string]any{
		"promptTokenCount": u.Input, "candidatesTokenCount": u.Output, "cachedContentTokenCount": u.Cached,
		"thoughtsTokenCount": u.Reasoning, "totalTokenCount": u.Input + u.Output + u.Reasoning,
	}
}

func (g gemini) chunk(rep reply, parts []map[string]any, last bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	m := map[string]any{"candidates": []any{cand}, "modelVersion": rep.model, "responseId": rep.id}
	if last {
		cand["finishReason"] = "STOP"
		m["usageMetadata"] = g.usage(rep.usage)
	}
	return m
}

func (gemini) calls(rep reply) []map[string]any {
	var parts []map[string]any
	for _, c := range rep.calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.id, "name": c.name, "args": c.argsObject()}})
	}
	return parts
}

func (g gemini) whole(rep reply) any {
	var parts []map[string]any
	if rep.text != "" {
		parts = append(parts, map[string]any{"text": rep.text})
	}
	parts = append(parts, g.calls(rep)...)
	if parts == nil {
		parts = []map[string]any{{"text": ""}}
	}
	return g.chunk(rep, parts, true)
}

func (g gemini) stream(rep reply) []frame {
	var fs []frame
	if rep.text != "" {
		for _, d := range split(rep.text) {
			fs = append(fs, ev("", g.chunk(rep, []map[string]any{{"text": d}}, false)))
		}
	}
	last := g.calls(rep)
	if last == nil {
		last = []map[string]any{{"text": ""}}
	}
	return append(fs, ev("", g.chunk(rep, last, true)))
}

func (gemini) errorReply(_ http.Header, status, retryAfter int, msg string) any {
	st, def := "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	switch status {
	case 400:
		st, def = "INVALID_ARGUMENT", "Request contains an invalid argument."
	case 401:
		st, def = "UNAUTHENTICATED", "API key not valid. Please pass a valid API key."
	case 403:
		st, def = "PERMISSION_DENIED", "The caller does not have permission"
	case 404:
		st, def = "NOT_FOUND", "Requested entity was not found."
	case 429:
		st, def = "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."
	case 503, 529:
		st, def = "UNAVAILABLE", "The model is overloaded. Please try again later."
	}
	e := map[string]any{"code": status, "message": cmp.Or(msg, def), "status": st}
	if retryAfter > 0 {
		e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fmt.Sprintf("%ds", retryAfter)}}
	}
	return map[string]any{"error": e}
}

// usageLimit is the Gemini API's quota reply: RESOURCE_EXHAUSTED with the
// wait until the reset as its RetryInfo.
func (g gemini) usageLimit(h http.Header, _ time.Time, retryAfter int, msg string) any {
	if msg == "" {
		msg = fmt.Sprintf("You exceeded your current quota, please check your plan and billing details. Please retry in %ds.", retryAfter)
	}
	return g.errorReply(h, http.StatusTooManyRequests, retryAfter, msg)
}

func (gemini) countKey() string { return "totalTokens" }
