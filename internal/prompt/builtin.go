package prompt

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed builtin
var builtinFS embed.FS

// Builtin is a procedure embedded in the binary, so that `agentloop run`
// works with no configuration file at all.
type Builtin struct {
	Name        string
	Description string
	Parts       Parts
}

// Builtins returns the embedded procedures, sorted by name.
func Builtins() []Builtin {
	return []Builtin{
		{
			Name:        "build",
			Description: "implement the task described in the context files, one verified step per iteration",
			Parts:       builtinParts("build"),
		},
		{
			Name:        "fix-tests",
			Description: "make the failing tests pass by fixing the code, never the tests",
			Parts:       builtinParts("fix-tests"),
		},
	}
}

func builtinParts(name string) Parts {
	f := func(phase string) Part { return Part{File: BuiltinPrefix + name + "/" + phase + ".md"} }
	return Parts{
		Preamble: Part{File: BuiltinPrefix + "preamble.md"},
		Observe:  f("observe"), Orient: f("orient"), Decide: f("decide"), Act: f("act"),
	}
}

// ReadBuiltin returns an embedded prompt file, named with or without the
// "builtin:" prefix (e.g. "build/observe.md").
func ReadBuiltin(name string) ([]byte, error) {
	name = strings.TrimPrefix(name, BuiltinPrefix)
	b, err := fs.ReadFile(builtinFS, "builtin/"+name)
	if err != nil {
		return nil, fmt.Errorf("read built-in prompt %q: %w (see 'agentloop list' for the built-in procedures)", name, err)
	}
	return b, nil
}
