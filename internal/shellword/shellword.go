package shellword

import "strings"

// shellMeta are the characters that make a command line need a shell.
const shellMeta = "|&;<>()$`\\\"'*?[]#~=%{}\n"

// NeedsShell reports whether the command line line has shell syntax, and so
// must run under sh -c rather than split on spaces.
func NeedsShell(line string) bool { return strings.ContainsAny(line, shellMeta) }

// Join renders an argv as a shell command line a person can copy.
func Join(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, shellMeta+" \t") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
