package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// newWord is a word agentloop adds, quoted for the shell.
func newWord(s string) shWord { return shWord{raw: shQuote(s), lit: s} }

// optSpec describes a runner's options well enough to tell an option's value
// from a positional argument.
type optSpec struct {
	values map[string]bool // take the next word as their value (unless written NAME=VALUE)
	bools  map[string]bool // take none
	drop   map[string]bool // removed, with their value: agentloop sets them itself
	// positional tells a positional argument from the value of an option the
	// spec does not know, for the word after such an option.
	positional func(string) bool
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// splitArgs sorts args into the option words kept (with their values) and the
// positional arguments; it stops at "--" (rest is what follows it, nil when
// there is none).
func splitArgs(args []shWord, o optSpec) (kept, pos, rest []shWord, err error) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		name, _, hasValue := strings.Cut(w.lit, "=")
		switch {
		case w.lit == "--":
			return kept, pos, append([]shWord{}, args[i+1:]...), nil
		case w.expands:
			return nil, nil, nil, fmt.Errorf("an argument is a shell variable (%s): agentloop cannot tell what it is", w.raw)
		case !strings.HasPrefix(w.lit, "-") || w.lit == "-":
			pos = append(pos, w)
			continue
		}
		takes := !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1].lit, "-") &&
			(o.values[name] || (!o.bools[name] && !o.positional(args[i+1].lit)))
		if o.drop[name] {
			if takes {
				i++
			}
			continue
		}
		kept = append(kept, w)
		if takes {
			i++
			kept = append(kept, args[i])
		}
	}
	return kept, pos, nil, nil
}

// quoteRE quotes a test name for a regular expression in the syntax Go,
// JavaScript and Rust share.
func quoteRE(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$/`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unique returns the distinct values of f over fs, sorted.
func unique(fs []evidence.Finding, f func(evidence.Finding) string) []string {
	var out []string
	for _, x := range fs {
		if v := f(x); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

func looksLikePath(w string) bool {
	return strings.Contains(w, "/") || strings.Contains(w, "::") || strings.HasSuffix(w, ".py") ||
		jsFileRE().MatchString(w) || strings.HasSuffix(w, ".t")
}

// hasOption reports whether args hold the option name, alone or as NAME=VALUE.
func hasOption(args []shWord, name string) bool {
	return slices.ContainsFunc(args, func(w shWord) bool {
		n, _, _ := strings.Cut(w.lit, "=")
		return n == name
	})
}

// refuse returns an error when args hold one of the options named.
func refuse(args []shWord, names map[string]bool) error {
	for _, w := range args {
		if name, _, _ := strings.Cut(w.lit, "="); names[name] {
			return fmt.Errorf("%s picks its own tests", name)
		}
	}
	return nil
}
