package gate

import "github.com/agentloop/agentloop/internal/evidence"

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
