package prompt

import (
	"strings"

	"github.com/agentloop/agentloop/internal/textcut"
)

// BuiltinPrefix marks a [Part] file that is read from the prompts embedded in
// the binary, as in "builtin:build/observe.md".
const BuiltinPrefix = "builtin:"

// Part is one piece of a prompt: a template read from a file, or inline text.
// When both are set, File wins.
type Part struct {
	File string // path read at compose time; "builtin:NAME/PHASE.md" is embedded
	Text string // inline template text
}

// IsZero reports whether the part is empty.
func (p Part) IsZero() bool { return p.File == "" && p.Text == "" }

// String names the part for people: its file, or its first line of text.
func (p Part) String() string {
	if p.File != "" {
		return p.File
	}
	line, _, more := strings.Cut(p.Text, "\n")
	switch {
	case len(line) > 60:
		return "text: " + textcut.Bytes(line, 60)
	case more:
		return "text: " + line + textcut.Ellipsis
	}
	if line == "" {
		return ""
	}
	return "text: " + line
}

// Parts are the pieces of a procedure's prompt, composed in this order:
// the preamble, the context, then the four OODA phases.
type Parts struct {
	Preamble Part
	Context  []string // files, or inline text when not an existing file
	Observe  Part
	Orient   Part
	Decide   Part
	Act      Part
}

// phases returns the four phases with their names, in order.
func (p Parts) phases() []namedPart {
	return []namedPart{
		{"observe", p.Observe}, {"orient", p.Orient},
		{"decide", p.Decide}, {"act", p.Act},
	}
}

type namedPart struct {
	name string
	part Part
}

// Content returns the part's template text: its file's content (embedded for a
// "builtin:" file, else through read), or its inline text.
func (p Part) Content(read func(path string) ([]byte, error)) (string, error) {
	if p.File == "" {
		return p.Text, nil
	}
	b, err := readPart(p.File, read)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
