package double

import (
	"fmt"
	"strings"
	"time"
)

// request is what the double reads from any API's request.
type request struct {
	api     string
	model   string
	stream  bool
	tools   []tool
	replies int // the model's replies already in the conversation
	first   string
	last    string
	json    bool // the client asks for a JSON reply
}

type tool struct {
	name   string
	custom bool // an OpenAI custom (free-form) tool
}

// reply is what the double answers, before it is put in an API's shape.
type reply struct {
	id    string
	model string
	text  string
	calls []toolCall
	usage Usage
}

type toolCall struct {
	id     string
	name   string
	args   map[string]any
	custom string // the input of a custom tool call
}

// plan picks the turn and the fault for a request, and a usage limit's reset.
func (s *Server) plan(req *request, rec *Record) (reply, *Fault, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	rec.Seq = s.seq
	rep := reply{id: fmt.Sprintf("double-%d", s.seq), model: req.model}
	if s.sc.Model != "" {
		rep.model = s.sc.Model
	}
	fault, key := s.take(-1, s.sc.Fault), -1
	if len(req.tools) == 0 {
		rec.Side = true
		rep.text = s.sc.Side
		if rep.text == "" {
			rep.text = "ok"
			if req.json {
				rep.text = `{"reasoning":"scripted reply","model_choice":"flash","next_speaker":"user","complexity_reasoning":"scripted reply","complexity_score":10}`
			}
		}
		rep.usage = Usage{Input: 10, Output: 2}
		if s.sc.SideUsage != nil {
			rep.usage = *s.sc.SideUsage
		}
		return rep, fault, s.resets[key]
	}
	rec.Turn = req.replies
	if req.replies >= len(s.sc.Turns) {
		rec.Turn = len(s.sc.Turns)
		rep.text = s.sc.Final
		if rep.text == "" {
			rep.text = "Done."
		}
		rep.usage = Usage{Input: 100, Output: 5}
		return rep, fault, s.resets[key]
	}
	t := s.sc.Turns[req.replies]
	if fault == nil {
		fault, key = s.take(req.replies, t.Fault), req.replies
	}
	rep.text = t.Text
	rep.usage = Usage{Input: 100, Output: 10}
	if t.Usage != nil {
		rep.usage = *t.Usage
	}
	rep.calls = calls(t, req.tools, rep.id)
	return rep, fault, s.resets[key]
}

// take returns f if it still applies, counting it as served. A usage limit
// applies from the first request that meets it until its reset.
func (s *Server) take(key int, f *Fault) *Fault {
	if f == nil {
		return nil
	}
	if f.UsageLimit > 0 {
		reset, met := s.resets[key]
		if !met {
			reset = s.now().Add(time.Duration(f.UsageLimit) * time.Second)
			s.resets[key] = reset
		}
		if !s.now().Before(reset) {
			return nil
		}
	}
	if f.Count > 0 && s.served[key] >= f.Count {
		return nil
	}
	s.served[key]++
	return f
}

// calls renders a turn's tool calls for the tools the request declares.
func calls(t Turn, tools []tool, id string) []toolCall {
	declared := map[string]tool{}
	for _, tl := range tools {
		declared[tl.name] = tl
	}
	var out []toolCall
	add := func(name string, args map[string]any) {
		c := toolCall{id: fmt.Sprintf("call_%s_%d", strings.ReplaceAll(id, "-", "_"), len(out)), name: name, args: args}
		if declared[name].custom {
			c.custom, _ = args["input"].(string)
		}
		out = append(out, c)
	}
	shell := t.Shell
	if t.Write != nil {
		w := "mkdir -p \"$(dirname '" + t.Write.Path + "')\" && cat > '" + t.Write.Path + "' <<'DOUBLE_EOF'\n" +
			strings.TrimSuffix(t.Write.Content, "\n") + "\nDOUBLE_EOF"
		if shell != "" {
			w += "\n" + shell
		}
		shell = w
	}
	if shell != "" {
		if name, args, ok := shellCall(declared, shell); ok {
			add(name, args)
		}
	}
	for _, c := range t.Calls {
		if _, ok := declared[c.Name]; ok {
			add(c.Name, c.Args)
		}
	}
	return out
}

// shellTools are the shell tools of the CLIs, in the order they are looked for,
// with how each takes a command.
var shellTools = []struct {
	name string
	args func(cmd string) map[string]any
}{
	{"Bash", func(c string) map[string]any {
		return map[string]any{"command": c, "description": "Run a scripted command"}
	}},
	{"run_shell_command", func(c string) map[string]any {
		return map[string]any{"command": c, "description": "Run a scripted command", "is_background": false}
	}},
	{"bash", func(c string) map[string]any {
		return map[string]any{"command": c, "description": "Run a scripted command"}
	}},
	{"exec_command", func(c string) map[string]any { return map[string]any{"cmd": c} }},
	{"shell_command", func(c string) map[string]any { return map[string]any{"command": c} }},
	{"shell", func(c string) map[string]any { return map[string]any{"command": []string{"bash", "-lc", c}} }},
	{"execute_command", func(c string) map[string]any { return map[string]any{"command": c} }},
	{"run_command", func(c string) map[string]any { return map[string]any{"command": c} }},
}

func shellCall(declared map[string]tool, cmd string) (string, map[string]any, bool) {
	for _, st := range shellTools {
		if _, ok := declared[st.name]; ok {
			return st.name, st.args(cmd), true
		}
	}
	return "", nil, false
}
