package double

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// api is one model API: how its requests read and its replies look.
type api interface {
	name() string
	parse(body []byte, r *http.Request) (*request, error)
	whole(rep reply) any
	stream(rep reply) []frame
	// errorReply is the API's error of status (msg empty: the API's own
	// words for it): the body, and the headers it sets on h.
	errorReply(h http.Header, status, retryAfter int, msg string) any
	// usageLimit is the API's reply when the account's usage limit is
	// reached until reset: a 429 with this body and the headers it sets on h.
	usageLimit(h http.Header, reset time.Time, retryAfter int, msg string) any
	// countKey names the token count in the API's answer to a count of a
	// request's tokens.
	countKey() string
}

// conversation is the part of a request body that the Anthropic Messages
// API and the OpenAI Chat Completions API share: the model, whether to
// stream, and the messages so far.
type conversation struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
}

// writeJSON writes an API's JSON reply: every reply of the double that is
// not a stream.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// frame is one server-sent event (event may be empty), or a whole JSON body.
type frame struct {
	event string
	data  []byte
}

func ev(event string, v any) frame {
	b, _ := json.Marshal(v)
	return frame{event: event, data: b}
}

// route finds the API of a request, and for Gemini the method after the colon.
func route(r *http.Request) (api, string) {
	p := r.URL.Path
	if r.Method != http.MethodPost {
		return nil, ""
	}
	switch {
	case strings.HasSuffix(p, "/messages/count_tokens"):
		return anthropic{}, "countTokens"
	case strings.HasSuffix(p, "/messages"):
		return anthropic{}, ""
	case strings.HasSuffix(p, "/responses"):
		return responses{}, ""
	case strings.HasSuffix(p, "/chat/completions"):
		return chat{}, ""
	case strings.Contains(p, "/models/") && strings.Contains(p, ":"):
		method := p[strings.LastIndex(p, ":")+1:]
		switch method {
		case "generateContent", "streamGenerateContent", "countTokens":
			return gemini{}, method
		}
	}
	return nil, ""
}

// write sends the frames: server-sent events when streaming, else the body.
func write(w http.ResponseWriter, stream bool, frames []frame) {
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		for _, f := range frames {
			w.Write(f.data)
		}
		return
	}
	startStream(w)
	for _, f := range frames {
		writeFrame(w, f)
	}
}

func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func writeFrame(w http.ResponseWriter, f frame) {
	var b strings.Builder
	if f.event != "" {
		b.WriteString("event: " + f.event + "\n")
	}
	b.WriteString("data: ")
	b.Write(f.data)
	b.WriteString("\n\n")
	w.Write([]byte(b.String()))
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

// hang sends the start of a reply, then nothing until the client goes away.
func (s *Server) hang(w http.ResponseWriter, r *http.Request, stream bool, frames []frame) {
	if stream {
		startStream(w)
		if len(frames) > 0 {
			writeFrame(w, frames[0])
		}
	}
	<-r.Context().Done()
}

// cut sends about half of a reply, then breaks the connection.
func (s *Server) cut(w http.ResponseWriter, stream bool, frames []frame) {
	if stream {
		startStream(w)
		for _, f := range frames[:(len(frames)+1)/2] {
			writeFrame(w, f)
		}
	} else {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		if len(frames) > 0 {
			w.Write(frames[0].data[:len(frames[0].data)/2])
		}
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	panic(http.ErrAbortHandler)
}

// split cuts text in two deltas, so streams carry more than one.
func split(s string) []string {
	i := len(s) / 2
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	if i == 0 || i == len(s) {
		return []string{s}
	}
	return []string{s[:i], s[i:]}
}

// text reads the text out of a message content that is a string or a list of
// parts with a text (or content/output) field.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			if t := text(e); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		for _, k := range []string{"text", "content", "output"} {
			if t := text(x[k]); t != "" {
				return t
			}
		}
		if fr, ok := x["functionResponse"].(map[string]any); ok {
			b, _ := json.Marshal(fr["response"])
			return string(b)
		}
	}
	return ""
}

// argsObject is the call's arguments as a JSON object: {} when it has none.
func (c toolCall) argsObject() map[string]any {
	if c.args == nil {
		return map[string]any{}
	}
	return c.args
}

// jsonArgs is the call's arguments as the string of a JSON object, as the
// OpenAI APIs carry them.
func jsonArgs(args map[string]any) string {
	b, _ := json.Marshal(toolCall{args: args}.argsObject())
	return string(b)
}
