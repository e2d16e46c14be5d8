package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/suggest"
)

// Names lists every procedure, built-in and configured, sorted.
func (c *Config) Names() []string { return slices.Sorted(maps.Keys(c.procs)) }

// Procedure returns the resolved procedure called name. An empty name means
// the default: `default:` if set, else the only procedure the configuration
// files define, else the built-in "build".
func (c *Config) Procedure(name string) (Procedure, error) {
	if name == "" {
		name = c.Default
		if name == "" {
			return Procedure{}, fmt.Errorf("choose a procedure: the configuration defines %s; name one (agentloop run NAME) or set default: NAME in %s",
				strings.Join(c.user, ", "), WorkspaceFile)
		}
	}
	p, ok := c.procs[name]
	if !ok {
		hint := ""
		if near := suggest.Closest(name, c.Names()); near != "" {
			hint = fmt.Sprintf("; did you mean %q?", near)
		}
		return Procedure{}, fmt.Errorf("find procedure %q: no such procedure%s known: %s (see 'agentloop list')", name, orSemicolon(hint), strings.Join(c.Names(), ", "))
	}
	return p, nil
}

// Sources lists every effective value of the procedure name (default when
// empty), and the top-level settings, with where each came from, sorted by key.
func (c *Config) Sources(name string) []Source {
	if name == "" {
		name = c.Default
	}
	out := append(slices.Clone(c.top), c.sources[name]...)
	slices.SortStableFunc(out, func(a, b Source) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Agent returns the configured agent (or preset override) called name.
func (c *Config) Agent(name string) (AgentSpec, bool) {
	a, ok := c.Agents[name]
	return a, ok
}

// quoteArgv renders an argv as a shell would need it typed.
func quoteArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// orSemicolon ends a hint before the list that follows it: "; did you mean
// "x"? known: …", or plain "; known: …" when there is no hint.
func orSemicolon(hint string) string {
	if hint == "" {
		return ";"
	}
	return hint
}
