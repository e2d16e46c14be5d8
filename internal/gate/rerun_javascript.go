package gate

import (
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

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
func jsSelectable(f evidence.Finding) bool { return f.Test != "" && jsFileRE().MatchString(f.Unit) }

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
