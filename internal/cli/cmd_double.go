package cli

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
)

// doubleOptions are the flags of 'agentloop double'.
type doubleOptions struct {
	scenario string
	addr     string
	urlFile  string
	logFile  string
	token    string
}

func newDoubleCmd(d Deps) *cobra.Command {
	var o doubleOptions
	cmd := &cobra.Command{
		Use:   "double --scenario FILE",
		Short: "Serve scripted model replies to a real agent CLI, for tests that cost nothing",
		Long: `Serve a model double on 127.0.0.1: the Anthropic Messages API (/v1/messages), the
OpenAI Responses and Chat Completions APIs (/v1/responses, /v1/chat/completions) and the
Gemini API (/v1beta/models/M:generateContent and :streamGenerateContent), streaming and
not. Replies come from the scenario file: per turn, text and tool calls (the CLI's own
shell tool runs the commands), the usage to report, and faults (429 with retry-after,
401, 500, a cut stream, a reply that never ends, an account's usage limit reached
until a reset N seconds ahead, in each API's own reply). Point a CLI at the printed URL (see
the agent recipes in internal/agent/RECIPES.md). Every request is logged as a JSON line, with
secrets redacted. It serves on this machine only unless --addr says otherwise, and
then only requests that carry --token's key. It serves until interrupted.` + exitStatus(
			exitLine{ExitOK, "interrupted after serving"},
			exitError,
			exitLine{ExitUsage, "usage error, or a scenario file that is not valid"}),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDouble(cmd.Context(), o, d) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags adds the flags of `double` to fs.
func (o *doubleOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.scenario, "scenario", "", "the scenario file (YAML) (required)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "address to listen on (port 0: a free port)")
	fs.StringVar(&o.urlFile, "url-file", "", "also write the URL to this file once listening")
	fs.StringVar(&o.logFile, "log", "", "append the request log here (default: standard error)")
	fs.StringVar(&o.token, "token", "", "serve only requests that carry this API key (required with a non-loopback --addr)")
}

// runDouble is `agentloop double`.
func runDouble(ctx context.Context, o doubleOptions, d Deps) error {
	return app.Double(ctx, app.DoubleOptions{
		Scenario: o.scenario, Addr: o.addr, URLFile: o.urlFile, LogFile: o.logFile, Token: o.token,
		Environ: d.Environ(), Stdout: d.Stdout, Stderr: d.Stderr,
	})
}
