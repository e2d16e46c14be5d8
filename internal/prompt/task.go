package prompt

import (
	"strings"
)

// HasTask reports whether a prompt composed from p and d tells the agent what to
// do beyond a built-in procedure's general instructions: a task, a context entry
// with content, feedback (the failures found so far), human guidance, or a prompt
// part of the user's own. A context file that is empty does not count; neither
// does a copy of a built-in part (as `agentloop init` writes them). An entry that
// cannot be read counts: [Compose] reports it.
func HasTask(p Parts, d Data, read func(path string) ([]byte, error)) bool {
	for _, s := range []string{d.Task, d.Feedback, d.Guidance, d.Steer} {
		if strings.TrimSpace(s) != "" {
			return true
		}
	}
	for _, e := range p.Context {
		if strings.TrimSpace(e) == "" {
			continue
		}
		if strings.Contains(e, "\n") {
			return true
		}
		b, err := readPart(e, read)
		if err != nil || strings.TrimSpace(string(b)) != "" {
			return true // unreadable (Compose says why), inline text, or a file with content
		}
	}
	builtin := builtinTexts()
	for _, ph := range append(p.phases(), namedPart{"preamble", p.Preamble}) {
		text := ph.part.Text
		if ph.part.File != "" {
			if strings.HasPrefix(ph.part.File, BuiltinPrefix) {
				continue
			}
			b, err := read(ph.part.File)
			if err != nil {
				return true
			}
			text = string(b)
		}
		if t := strings.TrimSpace(text); t != "" && !builtin[t] {
			return true
		}
	}
	return false
}

// builtinTexts holds the trimmed text of every embedded prompt part.
func builtinTexts() map[string]bool {
	out := map[string]bool{}
	add := func(pt Part) {
		if b, err := ReadBuiltin(pt.File); err == nil {
			out[strings.TrimSpace(string(b))] = true
		}
	}
	for _, b := range Builtins() {
		add(b.Parts.Preamble)
		for _, ph := range b.Parts.phases() {
			add(ph.part)
		}
	}
	return out
}
