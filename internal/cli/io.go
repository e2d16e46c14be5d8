package cli

import (
	"io"
	"os"
)

// openInput opens a file argument, "-" meaning stdin. No file at all reads stdin
// too, unless it is a terminal: then the person forgot the file, and is told so.
func openInput(d Deps, file string) (io.Reader, string, func(), error) {
	if w, ok := d.Stdin.(io.Writer); ok && file == "" && d.IsTerminal != nil && d.IsTerminal(w) {
		return nil, "stdin", nil, usageError("no input: give a FILE, or pipe the input in (- reads stdin)")
	}
	if file == "" || file == "-" {
		return d.Stdin, "stdin", func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, file, nil, &ExitError{Code: ExitUsage, Err: err} // it names the file
	}
	return f, file, func() { f.Close() }, nil
}
