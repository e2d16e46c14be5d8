//go:build temporal

package cli

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentloop/agentloop/internal/temporal"
)

// dialTest is a client of the dev server at addr (namespace default), closed
// when the test ends.
func dialTest(t *testing.T, addr string) client.Client {
	t.Helper()
	c, err := temporal.Dial(t.Context(), temporal.Server{Address: addr, Namespace: "default"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// repoID is the identity the runs of the repository at repo were started
// under on Temporal ([temporal.KnownRepoID]).
func repoID(repo string) string { return temporal.KnownRepoID(filepath.Join(repo, ".agentloop")) }

// said is what a command said and how it ended.
type said struct {
	stdout, stderr string
	err            error
}

// inBackground runs the command args with run while the test goes on; what
// it said comes on the channel when it ends.
func inBackground(run func(args ...string) (string, string, error), args ...string) <-chan said {
	done := make(chan said, 1)
	go func() {
		o, e, err := run(args...)
		done <- said{o, e, err}
	}()
	return done
}

// ended is what the command running said when it ended, which it must within
// limit (what names it in the failure).
func ended(t *testing.T, running <-chan said, limit time.Duration, what string) said {
	t.Helper()
	select {
	case r := <-running:
		return r
	case <-time.After(limit):
		t.Fatalf("%s did not end within %s", what, limit)
		return said{}
	}
}

// cancelGraph cancels the workflow of the graph name of the repository at
// repo and is what the command following it (running) said when it ended,
// which it must within a minute.
func cancelGraph(t *testing.T, c client.Client, repo, name string, running <-chan said) said {
	t.Helper()
	if err := c.CancelWorkflow(t.Context(), graphWorkflowID(repo, name), ""); err != nil {
		t.Fatal(err)
	}
	return ended(t, running, time.Minute, "the graph's run, its workflow cancelled,")
}
