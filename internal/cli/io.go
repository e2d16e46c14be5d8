package cli

import (
	"io"
	"os"
)

// openInput opens a file argument, "-" meaning stdin.
func openInput(d Deps, file string) (io.Reader, string, func(), error) {
	if file == "" || file == "-" {
		return d.Stdin, "stdin", func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, file, nil, &ExitError{Code: ExitUsage, Err: err} // it names the file
	}
	return f, file, func() { f.Close() }, nil
}
