package prompt

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"text/template"
)

// Compose assembles one iteration's prompt: the preamble, "Iteration i of N",
// the task, the context, the four phases in order, then the feedback of the
// last iteration, the strategy's instructions and any human guidance.
//
// The preamble and the phases are Go templates executed with d; context is
// included as it is. read reads a file (paths are as configured, relative to
// the work directory); "builtin:" files come from the binary. A context entry
// is a file when read finds it; an entry that contains whitespace or no dot
// or slash is text when it is not a file; a missing file that looks like a
// path (TASK.md, docs/spec) is an error, so that a typo is not sent to the
// agent as the task.
func Compose(p Parts, d Data, read func(path string) ([]byte, error)) (string, error) {
	var b strings.Builder
	section := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	pre, err := render("preamble", p.Preamble, d, read)
	if err != nil {
		return "", err
	}
	section(pre)
	section(d.IterationLine())
	if d.Task != "" {
		section("# Task\n\n" + d.Task)
	}
	ctx, err := renderContext(p.Context, read)
	if err != nil {
		return "", err
	}
	section(ctx)
	var phases []string
	for _, ph := range p.phases() {
		s, err := render(ph.name, ph.part, d, read)
		if err != nil {
			return "", err
		}
		if s = strings.TrimSpace(s); s != "" {
			phases = append(phases, s)
		}
	}
	if len(phases) > 0 {
		section("# Instructions\n\n" + strings.Join(phases, "\n\n"))
	}
	if d.Feedback != "" {
		head := "# Feedback" // the first iteration's: what the baseline found, or the last run segment's
		if d.Iteration > 1 {
			head = fmt.Sprintf("# Feedback from iteration %d", d.Iteration-1)
		}
		section(head + "\n\nThis is what agentloop observed when it ran the checks and the review, not what the agent claimed.\n\n" + d.Feedback)
	}
	section(strategy(d))
	if d.Guidance != "" {
		section("# Guidance from a human\n\nA person read the escalation report and answered. Follow this guidance; it overrides earlier instructions where they conflict.\n\n" + d.Guidance)
	}
	if d.Steer != "" {
		section("# Guidance from a person watching the loop\n\nA person gave this guidance while the loop ran. Follow it; it overrides earlier instructions where they conflict.\n\n" + d.Steer)
	}
	b.WriteString("\n")
	return b.String(), nil
}

// render executes one part as a template.
func render(name string, p Part, d Data, read func(string) ([]byte, error)) (string, error) {
	if p.IsZero() {
		return "", nil
	}
	text, label := p.Text, name
	if p.File != "" {
		label = name + " (" + p.File + ")"
		src, err := readPart(p.File, read)
		if err != nil {
			return "", fmt.Errorf("compose prompt: read %s: %w; check prompt.%s in the configuration", label, err, name)
		}
		text = string(src)
	}
	t, err := template.New(label).Option("missingkey=error").Funcs(funcs).Parse(text)
	if err != nil {
		return "", fmt.Errorf("compose prompt: parse %s: %w", name, err)
	}
	out := &limited{max: maxPart}
	if err := t.Execute(out, d); err != nil {
		return "", fmt.Errorf("compose prompt: execute %s: %w", name, err)
	}
	return out.String(), nil
}

// maxPart bounds what one template may produce (a runaway {{range}}).
const maxPart = 2 << 20

// limited is a buffer that refuses to grow past max.
type limited struct {
	bytes.Buffer
	max int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.Len()+len(p) > l.max {
		return 0, fmt.Errorf("template output is larger than %d MiB", l.max>>20)
	}
	return l.Buffer.Write(p)
}

var funcs = template.FuncMap{
	"join": strings.Join,
}

func readPart(path string, read func(string) ([]byte, error)) ([]byte, error) {
	if strings.HasPrefix(path, BuiltinPrefix) {
		return ReadBuiltin(path)
	}
	return read(path)
}

// ContextText is the text of the context entries as a prompt gives them
// (each file's content under its path, inline text as it is): what the run
// was told. "" when there are none, or when one cannot be read (composing
// the prompt says why).
func ContextText(entries []string, read func(string) ([]byte, error)) string {
	s, err := renderContext(entries, read)
	if err != nil {
		return ""
	}
	return s
}

// renderContext renders the context entries: each file under a heading with its
// path, inline text as it is.
func renderContext(entries []string, read func(string) ([]byte, error)) (string, error) {
	if len(entries) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("# Context")
	for _, e := range entries {
		if strings.TrimSpace(e) == "" {
			continue
		}
		if strings.Contains(e, "\n") {
			b.WriteString("\n\n" + strings.TrimSpace(e))
			continue
		}
		data, err := readPart(e, read)
		switch {
		case err == nil:
			b.WriteString("\n\n## " + strings.TrimPrefix(e, BuiltinPrefix) + "\n\n" + fence(e, string(data)))
		case errors.Is(err, fs.ErrNotExist) && !looksLikePath(e):
			b.WriteString("\n\n" + strings.TrimSpace(e))
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("compose prompt: context file %s does not exist; fix the path, or write text with a space in it to pass text", e)
		default:
			return "", fmt.Errorf("compose prompt: read context %s: %w", e, err)
		}
	}
	return b.String(), nil
}

// looksLikePath reports whether a one-line context entry names a file rather
// than being a short text.
func looksLikePath(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t") {
		return false
	}
	return strings.ContainsAny(s, `/\`) || filepath.Ext(s) != ""
}

// fence returns a file's content in a code fence longer than any backtick
// run inside it, so that its own headings and fences stay inside.
func fence(path, content string) string {
	content = strings.TrimRight(content, "\n")
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch ext {
	case "md":
		ext = "markdown"
	case "", "txt":
		ext = "text"
	}
	ticks := "```"
	for strings.Contains(content, ticks) {
		ticks += "`"
	}
	return ticks + ext + "\n" + content + "\n" + ticks
}
