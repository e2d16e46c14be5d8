package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// openInput opens a file argument, "-" meaning stdin.
func openInput(d Deps, file string) (io.Reader, string, func(), error) {
	if file == "" || file == "-" {
		return d.Stdin, "stdin", func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, file, nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("open %s: %w", file, err)}
	}
	return f, file, func() { f.Close() }, nil
}

// shellJoin renders an argv as a shell command line a person can copy.
func shellJoin(argv []string) string {
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
