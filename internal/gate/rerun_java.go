package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// javaMethod is a JUnit test name as Surefire and Gradle select it: without
// a parameterized test's arguments ("add(int)[1]" is add).
func javaMethod(name string) string {
	if i := strings.IndexAny(name, "(["); i > 0 {
		name = name[:i]
	}
	return strings.TrimSpace(name)
}

func javaSelectable(f evidence.Finding) bool { return f.Test != "" && javaMethod(f.Test) != "" }

// javaSelector is how Surefire's -Dtest and Gradle's --tests name a failed
// JUnit test: its method, and for JUnit 4's parameterized add[20+1] the
// pattern add[*]: both match the whole name, so "add" alone selects none of
// add[…] (checked with Surefire 2.22.3 and Gradle 4.4.1).
func javaSelector(test string) string {
	m := javaMethod(test)
	if strings.HasPrefix(test, m+"[") {
		m += "[*]"
	}
	return m
}

func mavenRunner() *rerunner {
	return &rerunner{name: "mvn", selectable: javaSelectable, rewrite: func(args []shWord, sel []evidence.Finding) ([]shWord, []string, error) {
		var kept []shWord
		for i := 0; i < len(args); i++ {
			w := args[i].lit
			switch {
			case strings.HasPrefix(w, "-Dtest="), strings.HasPrefix(w, "-Dit.test="):
				continue
			case w == "-D" && i+1 < len(args) && strings.HasPrefix(args[i+1].lit, "test="):
				i++
				continue
			case args[i].expands:
				return nil, nil, fmt.Errorf("an argument is a shell variable (%s)", args[i].raw)
			}
			kept = append(kept, args[i])
		}
		units := unique(sel, func(f evidence.Finding) string { return f.Unit })
		var classes []string
		for _, u := range units {
			var methods []string
			for _, f := range sel {
				m := javaSelector(f.Test)
				if f.Unit == u && !slices.Contains(methods, m) {
					methods = append(methods, m)
				}
			}
			classes = append(classes, u+"#"+strings.Join(methods, "+"))
		}
		kept = append(kept, newWord("-Dtest="+strings.Join(classes, ",")), newWord("-Dsurefire.failIfNoSpecifiedTests=false"))
		return kept, units, nil
	}}
}

func gradleRunner() *rerunner {
	return &rerunner{name: "gradle", selectable: javaSelectable, rewrite: func(args []shWord, sel []evidence.Finding) ([]shWord, []string, error) {
		var kept []shWord
		at := -1
		for i := 0; i < len(args); i++ {
			w := args[i].lit
			switch {
			case w == "--tests" && i+1 < len(args):
				i++
				continue
			case strings.HasPrefix(w, "--tests="):
				continue
			case args[i].expands:
				return nil, nil, fmt.Errorf("an argument is a shell variable (%s)", args[i].raw)
			}
			kept = append(kept, args[i])
			if w == "test" || strings.HasSuffix(w, ":test") {
				at = len(kept)
			}
		}
		if at < 0 {
			return nil, nil, fmt.Errorf("it runs no task named test (--tests filters the test task)")
		}
		var filters []shWord
		for _, t := range unique(sel, func(f evidence.Finding) string { return f.Unit + "." + javaSelector(f.Test) }) {
			filters = append(filters, newWord("--tests"), newWord(t))
		}
		out := append(append(slices.Clone(kept[:at]), filters...), kept[at:]...)
		return out, unique(sel, func(f evidence.Finding) string { return f.Unit }), nil
	}}
}
