package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/agentloop/agentloop/internal/app"
)

// Deps is everything a command touches of the process it runs in.
type Deps struct {
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	Getenv     func(string) string
	Environ    func() []string
	Now        func() time.Time
	IsTerminal func(w io.Writer) bool
	// TermWidth is the width in columns of the terminal w is, 0 when unknown.
	TermWidth func(w io.Writer) int
	Getwd     func() (string, error)
	// Executable is this program's path, for agents that call back into it (the demo).
	Executable func() (string, error)
	// LookPath finds an executable on PATH.
	LookPath func(file string) (string, error)
	// Geteuid is the effective user id (-1 where there is none), for the agent
	// CLIs that refuse to run as root.
	Geteuid func() int
	// Forge opens the forge of a host for run --issue and serve (nil:
	// GitHub's, [app.OpenGitHub]); a test gives its GitHub double's.
	Forge app.OpenForge
}

// forgeOf is how d opens a forge.
func forgeOf(d Deps) app.OpenForge {
	if d.Forge != nil {
		return d.Forge
	}
	return app.OpenGitHub
}

// Std returns the real process's dependencies.
func Std() Deps {
	return Deps{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Environ: os.Environ, Now: time.Now,
		IsTerminal: func(w io.Writer) bool {
			f, ok := w.(*os.File)
			return ok && term.IsTerminal(int(f.Fd()))
		},
		TermWidth: func(w io.Writer) int {
			f, ok := w.(*os.File)
			if !ok {
				return 0
			}
			cols, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return cols
		},
		Getwd: os.Getwd, Executable: os.Executable, LookPath: exec.LookPath, Geteuid: os.Geteuid,
	}
}

// Main runs the command line and returns the process exit code. The first SIGINT
// or SIGTERM cancels the context (the loop ends its agent, saves and prints how
// to resume); a second one kills every process group agentloop started (agents,
// reviewers, gates) with SIGKILL and exits at once.
func Main(args []string, d Deps) int {
	if code, ok := app.Helper(args, d.Stdin, d.Stderr); ok {
		return code
	}
	watchdog := ""
	if d.Executable != nil {
		watchdog, _ = d.Executable()
	}
	base, children := app.AdoptChildren(context.Background(), d.Getenv != nil && d.Getenv("AGENTLOOP_CGROUP") == "off", watchdog)
	ctx, cancel := context.WithCancelCause(base)
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		cancel(&InterruptError{Signal: s.String()})
		if _, ok := <-sigs; ok {
			// The children run in process groups of their own, which the
			// terminal's Ctrl-C does not reach: end them before exiting.
			n := children.KillAll()
			fmt.Fprintf(d.Stderr, "\nagentloop: second interrupt, killed %d process group(s), exiting now\n", n)
			os.Exit(ExitInterrupted)
		}
	}()
	err := Run(ctx, args, d)
	children.Done() // each run ended what it started: the watchdog need not look for it
	code := ExitCode(err)
	if err != nil {
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Err != nil {
			fmt.Fprintf(d.Stderr, "agentloop: %v\n", err)
		}
	}
	return code
}

// Run executes one command line.
func Run(ctx context.Context, args []string, d Deps) error {
	root := newRoot(d)
	root.SetArgs(args)
	root.SetIn(d.Stdin)
	root.SetOut(d.Stdout)
	root.SetErr(d.Stderr)
	return root.ExecuteContext(ctx)
}

func newRoot(d Deps) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentloop",
		Short: "Run AI coding agents in bounded, evidence-driven iteration loops",
		Long: `agentloop runs an AI coding agent (Claude Code, Codex, Gemini CLI, … or any command)
as a fresh process per iteration, runs the quality gates itself, asks a reviewer,
decides from the evidence whether to go on, and stops — with a report for you —
when it should. State lives in .agentloop/ so every run survives Ctrl-C and resumes.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			msg := fmt.Sprintf("unknown command %q", args[0])
			var names []string
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					names = append(names, c.Name())
				}
			}
			if s := app.DidYouMean(args[0], names); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return usageError("%s\nRun 'agentloop --help' for the commands.", msg)
		},
	}
	// --version has no -v: the subcommands' -v is --verbose.
	root.Flags().Bool("version", false, "print the version")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newRunCmd(d),
		newServeCmd(d),
		newResumeCmd(d),
		newStatusCmd(d),
		newInboxCmd(d),
		newGuideCmd(d),
		newStopCmd(d),
		newFollowCmd(d),
		newWatchCmd(d),
		newReportCmd(d),
		newWorkerCmd(d),
		newDecideCmd(d),
		newFeedbackCmd(d),
		newAgentsCmd(d),
		newDoctorCmd(d),
		newListCmd(d),
		newSpendCmd(d),
		newBudgetCmd(d),
		newCleanCmd(d),
		newInitCmd(d),
		newDemoCmd(d),
		newDemoAgentCmd(d),
		newDoubleCmd(d),
		newVersionCmd(d),
		newEnvironmentTopic(),
	)
	addCompletions(root, d)
	return root
}

// hostOf is what of this process the agent preflight reads ([app.NewHost]).
func hostOf(d Deps) app.HostOptions {
	return app.HostOptions{LookPath: d.LookPath, Getenv: d.Getenv, Environ: d.Environ, Root: d.Geteuid != nil && d.Geteuid() == 0}
}
