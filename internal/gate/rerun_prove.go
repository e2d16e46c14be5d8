package gate

import (
	"strings"

	"github.com/agentloop/agentloop/internal/evidence"
)

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
