package gate

import (
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

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
