package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

func looksLikePath(w string) bool {
	return strings.Contains(w, "/") || strings.Contains(w, "::") || strings.HasSuffix(w, ".py") ||
		jsFileRE.MatchString(w) || strings.HasSuffix(w, ".t")
}

var pytestOpts = optSpec{
	values: set("-k", "-m", "-p", "-c", "-o", "-W", "-n", "-r", "--rootdir", "--junitxml", "--junit-xml", "--junit-prefix",
		"--tb", "--ignore", "--ignore-glob", "--deselect", "--maxfail", "--durations", "--durations-min", "--basetemp",
		"--confcutdir", "--import-mode", "--log-level", "--log-file", "--log-file-level", "--log-format",
		"--log-date-format", "--log-cli-level", "--log-cli-format", "--cov", "--cov-report", "--cov-config",
		"--cov-fail-under", "--capture", "--color", "--code-highlight", "--override-ini", "--doctest-glob",
		"--reruns", "--reruns-delay", "--dist", "--numprocesses", "--timeout", "--html", "-p", "--show-capture",
		"--verbosity", "--assert", "--randomly-seed", "--config-file", "--rootdir"),
	bools: set("-v", "-vv", "-q", "-qq", "-x", "-s", "-l", "-ra", "-rA", "--exitfirst", "--lf", "--last-failed", "--ff",
		"--failed-first", "--nf", "--sw", "--stepwise", "--cache-clear", "--strict-markers", "--strict", "--pdb",
		"--no-header", "--no-summary", "--disable-warnings", "--runxfail", "--showlocals", "--full-trace",
		"--doctest-modules", "--pyargs", "--quiet", "--verbose", "--new-first", "--setup-show", "--co", "--collect-only"),
	drop:       set("--tb"),
	positional: looksLikePath,
}

func pytestRunner() *rerunner {
	return &rerunner{name: "pytest", rewrite: rewritePytest, selectable: func(f evidence.Finding) bool {
		return strings.HasSuffix(f.Unit, ".py") && f.Test != ""
	}}
}

// rewritePytest keeps pytest's options and names each failed test by its
// node id (file::Class::test[param]) instead of the paths given. What only
// explains a failure is left out, for the flaky check reads no more than
// which tests failed (the "short test summary info" and the counts line,
// which pytest prints whatever the traceback style): --tb=no in place of the
// gate's --tb (no traceback is formatted: no source read, no long lines),
// --assert=plain unless the gate sets --assert (an assert that fails raises
// a bare AssertionError: no rewritten explanation, no diff of the values;
// whether it fails is the same), and with pytest-cov's --cov, --no-cov (no
// coverage measured, and no --cov-fail-under that a few tests alone miss).
func rewritePytest(args []shWord, sel []evidence.Finding) ([]shWord, []string, error) {
	kept, _, rest, err := splitArgs(args, pytestOpts)
	if err != nil {
		return nil, nil, err
	}
	_ = rest // after "--" come paths only
	kept = append(kept, newWord("--tb=no"))
	if !hasOption(kept, "--assert") {
		kept = append(kept, newWord("--assert=plain"))
	}
	if hasOption(kept, "--cov") {
		kept = append(kept, newWord("--no-cov"))
	}
	for _, id := range unique(sel, func(f evidence.Finding) string { return f.Unit + "::" + f.Test }) {
		kept = append(kept, newWord(id))
	}
	return kept, unique(sel, func(f evidence.Finding) string { return f.Unit }), nil
}

// hasOption reports whether args hold the option name, alone or as NAME=VALUE.
func hasOption(args []shWord, name string) bool {
	return slices.ContainsFunc(args, func(w shWord) bool {
		n, _, _ := strings.Cut(w.lit, "=")
		return n == name
	})
}

var jsRefused = set("--watch", "--watchAll", "-o", "--onlyChanged", "--changedSince", "--findRelatedTests",
	"--lastCommit", "--listTests", "--related", "--changed")

var jestOpts = optSpec{
	values: set("-c", "--config", "--roots", "-w", "--maxWorkers", "--outputFile", "--reporters", "--testTimeout",
		"--selectProjects", "--ignoreProjects", "--shard", "--coverageDirectory", "--coverageReporters",
		"--coverageProvider", "--collectCoverageFrom", "--testPathIgnorePatterns", "--testMatch", "--testRegex",
		"--setupFiles", "--setupFilesAfterEnv", "--testEnvironment", "--testRunner", "--testSequencer", "--rootDir",
		"--projects", "--seed", "--maxConcurrency", "--preset", "--cacheDirectory", "--testNamePattern", "-t",
		"--testPathPattern", "--testPathPatterns"),
	bools: set("--ci", "--json", "--silent", "--verbose", "--coverage", "-i", "--runInBand", "--passWithNoTests",
		"--detectOpenHandles", "--forceExit", "--no-cache", "--logHeapUsage", "--useStderr", "--noStackTrace",
		"--testLocationInResults", "--errorOnDeprecated", "--colors", "--no-colors", "--bail", "--runTestsByPath",
		"--randomize", "--no-watchman", "--expand", "-e"),
	drop: set("-t", "--testNamePattern", "--testPathPattern", "--testPathPatterns", "--runTestsByPath",
		"--coverage", "--collectCoverage"),
	positional: looksLikePath,
}

// jsSelectable: a failure names its test and the file jest or vitest runs
// (jest-junit without its file attribute names none: its classname is the
// test's describe blocks and title).
func jsSelectable(f evidence.Finding) bool { return f.Test != "" && jsFileRE.MatchString(f.Unit) }

// jsNamePattern is the -t pattern that matches the tests' full names, the
// titles of their describe blocks and their own joined by a space.
func jsNamePattern(sel []evidence.Finding) string {
	names := unique(sel, func(f evidence.Finding) string { return quoteRE(strings.ReplaceAll(f.Test, " › ", " ")) })
	return "^(" + strings.Join(names, "|") + ")$"
}

func jestRunner() *rerunner {
	return &rerunner{name: "jest", selectable: jsSelectable, rewrite: jsRewrite(jestOpts, "--coverage=false", "--runTestsByPath")}
}

// jsRewrite keeps a JavaScript runner's options and names the failed tests'
// files and, with -t, their full names; flags are added before them: no
// coverage (jest's --coverage=false, vitest's --coverage.enabled=false, over
// the gate's --coverage and its config: a few tests alone measure nothing
// worth keeping and miss any coverage threshold), and jest's
// --runTestsByPath, which makes the files exact paths rather than patterns.
func jsRewrite(opts optSpec, flags ...string) func([]shWord, []evidence.Finding) ([]shWord, []string, error) {
	return func(args []shWord, sel []evidence.Finding) ([]shWord, []string, error) {
		if err := refuse(args, jsRefused); err != nil {
			return nil, nil, err
		}
		kept, _, _, err := splitArgs(args, opts)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range flags {
			kept = append(kept, newWord(f))
		}
		kept = append(kept, newWord("-t"), newWord(jsNamePattern(sel)))
		units := unique(sel, func(f evidence.Finding) string { return f.Unit })
		for _, u := range units {
			kept = append(kept, newWord(u))
		}
		return kept, units, nil
	}
}

var vitestOpts = optSpec{
	values: set("-c", "--config", "-r", "--root", "--dir", "--reporter", "--outputFile", "--project", "--environment",
		"--pool", "--maxWorkers", "--minWorkers", "--testTimeout", "--hookTimeout", "--shard", "--mode", "--bail",
		"--retry", "--exclude", "-t", "--testNamePattern", "--maxConcurrency", "--silent"),
	bools: set("--run", "--globals", "--coverage", "--passWithNoTests", "--allowOnly", "--no-color", "--color",
		"--logHeapUsage", "--hideSkippedTests", "--no-file-parallelism", "--isolate", "--clearScreen", "--ui", "--open"),
	drop:       set("-t", "--testNamePattern", "--coverage"),
	positional: looksLikePath,
}

func vitestRunner() *rerunner {
	return &rerunner{name: "vitest", selectable: jsSelectable, rewrite: jsRewrite(vitestOpts, "--coverage.enabled=false")}
}

var cargoOpts = optSpec{
	values: set("-p", "--package", "--test", "--bench", "--bin", "--example", "-F", "--features", "--target",
		"--target-dir", "--manifest-path", "-j", "--jobs", "--profile", "--color", "--config", "-Z",
		"--message-format", "--exclude", "--lockfile-path"),
	positional: func(string) bool { return false },
}

var libtestOpts = optSpec{
	values:     set("--test-threads", "--logfile", "--skip", "--color", "--format", "-Z", "--shuffle-seed"),
	drop:       set("--exact"),
	positional: func(string) bool { return true },
}

func cargoRunner() *rerunner {
	return &rerunner{name: "cargo test", selectable: func(f evidence.Finding) bool { return f.Test != "" },
		rewrite: func(args []shWord, sel []evidence.Finding) ([]shWord, []string, error) {
			kept, _, rest, err := splitArgs(args, cargoOpts)
			if err != nil {
				return nil, nil, err
			}
			bin, _, _, err := splitArgs(rest, libtestOpts)
			if err != nil {
				return nil, nil, err
			}
			out := append(append(kept, newWord("--")), bin...)
			out = append(out, newWord("--exact"))
			for _, t := range unique(sel, func(f evidence.Finding) string { return f.Test }) {
				out = append(out, newWord(t))
			}
			return out, unique(sel, func(f evidence.Finding) string { return f.Unit }), nil
		}}
}

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

var nodeOpts = optSpec{
	values: set("--test-reporter", "--test-reporter-destination", "--import", "--require", "-r", "--loader",
		"--experimental-loader", "--test-concurrency", "--test-timeout", "--test-shard", "--test-skip-pattern",
		"--conditions", "-C", "--env-file", "--test-name-pattern"),
	bools:      set("--test", "--test-only", "--experimental-test-coverage", "--enable-source-maps", "--no-warnings", "--experimental-strip-types"),
	drop:       set("--test-name-pattern"),
	positional: looksLikePath,
}

func nodeRunner() *rerunner {
	return &rerunner{name: "node --test", selectable: func(f evidence.Finding) bool { return f.Test != "" },
		rewrite: func(args []shWord, sel []evidence.Finding) ([]shWord, []string, error) {
			kept, _, _, err := splitArgs(args, nodeOpts)
			if err != nil {
				return nil, nil, err
			}
			names := unique(sel, func(f evidence.Finding) string { return quoteRE(f.Test) })
			// A test's own name, or (newer Node) its suites' names and its own.
			kept = append(kept, newWord("--test-name-pattern=(^| )("+strings.Join(names, "|")+")$"))
			units := unique(sel, func(f evidence.Finding) string { return f.Unit })
			for _, u := range units {
				kept = append(kept, newWord(u))
			}
			return kept, units, nil
		}}
}

var proveOpts = optSpec{
	values:     set("-j", "--jobs", "-e", "--exec", "--harness", "--formatter", "--state", "-P", "-M", "--ext", "--rc", "--source", "-a", "--archive"),
	bools:      set("-v", "--verbose", "-r", "--recurse", "-l", "--lib", "-b", "--blib", "-s", "--shuffle", "-q", "-Q", "--timer", "--color", "--nocolor", "-f", "--failures", "-o", "--comments", "-w", "-W", "-t", "-T", "--merge", "-m"),
	positional: looksLikePath,
}

func proveRunner() *rerunner {
	return &rerunner{name: "prove", selectable: func(f evidence.Finding) bool { return strings.HasSuffix(f.Unit, ".t") },
		rewrite: func(args []shWord, sel []evidence.Finding) ([]shWord, []string, error) {
			kept, _, _, err := splitArgs(args, proveOpts)
			if err != nil {
				return nil, nil, err
			}
			units := unique(sel, func(f evidence.Finding) string { return f.Unit })
			for _, u := range units {
				kept = append(kept, newWord(u))
			}
			return kept, units, nil
		}}
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
