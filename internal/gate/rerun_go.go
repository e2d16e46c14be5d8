package gate

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

// goTestOpts are go test's flags, build and test, that take a value.
var goTestOpts = optSpec{
	values: set("-C", "-p", "-asmflags", "-buildmode", "-compiler", "-gccgoflags", "-gcflags", "-installsuffix",
		"-ldflags", "-mod", "-modfile", "-overlay", "-pgo", "-pkgdir", "-tags", "-toolexec", "-o", "-exec",
		"-covermode", "-coverpkg", "-coverprofile", "-vet", "-outputdir", "-bench", "-benchtime", "-count",
		"-cpu", "-fuzz", "-fuzztime", "-fuzzminimizetime", "-list", "-parallel", "-run", "-skip", "-timeout",
		"-shuffle", "-blockprofile", "-blockprofilerate", "-cpuprofile", "-memprofile", "-memprofilerate",
		"-mutexprofile", "-mutexprofilefraction", "-trace"),
	bools: set("-json", "-v", "-short", "-race", "-msan", "-asan", "-cover", "-failfast", "-benchmem", "-fullpath",
		"-a", "-n", "-x", "-work", "-trimpath", "-linkshared", "-modcacherw", "-c", "-i", "-buildvcs"),
	drop: set("-run", "--run", "-count", "--count", "-cover", "--cover", "-coverprofile", "--coverprofile",
		"-covermode", "--covermode", "-coverpkg", "--coverpkg"),
	positional: func(w string) bool {
		return strings.HasPrefix(w, ".") || strings.Contains(w, "/") || w == "std" || w == "all"
	},
}

func goRunner() *rerunner {
	return &rerunner{name: "go test", rewrite: rewriteGoTest, selectable: goSelectable}
}

func goSelectable(f evidence.Finding) bool { return f.Test != "" }

// rewriteGoTest keeps go test's flags, drops its packages and -run, and
// names the failed tests' packages with -run '^(TestA|TestB)$' (a subtest
// runs again with its top-level test) and -count=1 (a cached pass is no
// rerun). Coverage is dropped (-cover, -coverprofile, -covermode, -coverpkg):
// a few tests' coverage is worth nothing, and their profile would overwrite
// the gate's. Flags after -args go to the test binary, as before.
func rewriteGoTest(args []shWord, sel []evidence.Finding) ([]shWord, []string, error) {
	var bin []shWord
	for i, w := range args {
		if w.lit == "-args" || w.lit == "--args" {
			args, bin = args[:i], args[i:]
			break
		}
	}
	kept, pos, _, err := splitArgs(args, goTestOpts)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range pos {
		if strings.HasSuffix(p.lit, ".go") {
			return nil, nil, fmt.Errorf("it names .go files (%s), not packages", p.lit)
		}
	}
	units := unique(sel, func(f evidence.Finding) string { return f.Unit })
	tops := unique(sel, func(f evidence.Finding) string { top, _, _ := strings.Cut(f.Test, "/"); return top })
	for i := range tops {
		tops[i] = quoteRE(tops[i])
	}
	out := append(kept, newWord("-count=1"), newWord("-run=^("+strings.Join(tops, "|")+")$"))
	for _, u := range units {
		out = append(out, newWord(u))
	}
	return append(out, bin...), units, nil
}

// gotestsumOpts are gotestsum's own flags that take a value.
var gotestsumOpts = optSpec{
	values: set("-f", "--format", "--packages", "--jsonfile", "--junitfile", "--post-run-command", "--rerun-fails-report",
		"--rerun-fails-max-failures", "--junitfile-testsuite-name", "--junitfile-testcase-classname",
		"--junitfile-project-name", "--format-icons", "--hide-summary", "--jsonfile-timing-events", "--max-fails", "--watch-chdir"),
	bools:      set("--no-color", "--debug", "--no-summary", "--format-hide-empty-pkg", "--rerun-fails", "--version", "--watch"),
	drop:       set("--packages"),
	positional: func(string) bool { return false },
}

func gotestsumRunner() *rerunner {
	return &rerunner{name: "gotestsum", rewrite: rewriteGotestsum, selectable: goSelectable}
}

// rewriteGotestsum keeps gotestsum's flags (less --packages) and rewrites
// the go test arguments after "--" as for go test.
func rewriteGotestsum(args []shWord, sel []evidence.Finding) ([]shWord, []string, error) {
	for _, w := range args {
		if w.lit == "--" {
			break
		}
		switch name, _, _ := strings.Cut(w.lit, "="); name {
		case "--raw-command":
			return nil, nil, fmt.Errorf("--raw-command runs a command of its own")
		case "--watch":
			return nil, nil, fmt.Errorf("--watch never ends")
		case "--rerun-fails":
			return nil, nil, fmt.Errorf("--rerun-fails has run the failed tests again already")
		}
	}
	kept, pos, rest, err := splitArgs(args, gotestsumOpts)
	if err != nil {
		return nil, nil, err
	}
	goArgs, units, err := rewriteGoTest(append(pos, rest...), sel)
	if err != nil {
		return nil, nil, err
	}
	return append(append(kept, newWord("--")), goArgs...), units, nil
}
