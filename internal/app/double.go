package app

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/agentloop/agentloop/internal/double"
	"github.com/agentloop/agentloop/internal/redact"
)

// DoubleOptions are how `agentloop double` serves a model double.
type DoubleOptions struct {
	Scenario string // the scenario file
	Addr     string // where to listen
	URLFile  string // where to write the URL it serves at ("": nowhere)
	LogFile  string // where to append the request log ("": Stderr)
	Token    string // the API key every request must carry ("": none)
	// Environ is the process's environment, whose secrets the log redacts.
	Environ        []string
	Stdout, Stderr io.Writer
}

// Double serves the scenario's model replies at o.Addr until ctx ends,
// printing its URL on o.Stdout.
func Double(ctx context.Context, o DoubleOptions) error {
	if o.Scenario == "" {
		return &UsageError{fmt.Errorf("double needs --scenario FILE (see 'agentloop double --help')")}
	}
	if !double.Loopback(o.Addr) {
		if o.Token == "" {
			return &UsageError{fmt.Errorf("double --addr %s listens beyond this machine: give --token KEY, the API key every request must carry (or use 127.0.0.1:PORT)", o.Addr)}
		}
		fmt.Fprintf(o.Stderr, "warning: the double listens on %s, reachable from other machines; requests without --token's key get 401\n", o.Addr)
	}
	sc, err := double.LoadScenario(o.Scenario)
	if err != nil {
		return &UsageError{err}
	}
	log := o.Stderr
	if o.LogFile != "" {
		f, err := os.OpenFile(o.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("open the request log: %w", err)
		}
		defer f.Close()
		log = f
	}
	ln, url, err := double.Listen(o.Addr)
	if err != nil {
		return err
	}
	if o.URLFile != "" {
		if err := os.WriteFile(o.URLFile, []byte(url+"\n"), 0o644); err != nil {
			ln.Close()
			return fmt.Errorf("write the URL file: %w", err)
		}
	}
	fmt.Fprintln(o.Stdout, url)
	srv := double.New(sc, log)
	srv.Token, srv.Redact = o.Token, redact.New(o.Environ)
	err = double.Serve(ctx, ln, srv)
	if ctx.Err() != nil {
		return nil
	}
	return err
}
