package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/report"
)

// demoOptions are the flags of `demo`.
type demoOptions struct {
	dir     string
	keep    bool
	verbose bool
}

// AddFlags adds the flags of `demo` to fs.
func (o *demoOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.dir, "dir", "", "create the sample project here instead of a temporary folder (kept)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary folder (project, state, logs, report) when the demo ends")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "show what the agent says and does (a line per text and tool call)")
}

func newDemoCmd(d Deps) *cobra.Command {
	var o demoOptions
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run a complete loop on a bundled sample project (needs only Go)",
		Long: `Create a small Go project with three failing tests in a temporary folder, and run
a real loop on it: a built-in scripted agent reads the feedback in its prompt and
fixes one failure per iteration, the real 'go test -json' is the gate, and the
loop ends when every test passes.

The temporary folder is removed when the demo succeeds or is interrupted; with
--keep, or when the loop did not succeed, it is kept and the demo says where
its state, logs and HTML report are. A folder given with --dir is always kept.
It exits as 'agentloop run' does.` + exitStatus(
			exitSucceeded,
			exitLine{ExitFailure, "error, or Go is not on PATH"},
			exitUsageLine, exitAbortedLine, exitEscalLine, exitInterrupted),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd.Context(), o, d) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runDemo is `agentloop demo`.
func runDemo(ctx context.Context, o demoOptions, d Deps) error {
	goBin, err := d.LookPath("go")
	if err != nil {
		return errors.New("the demo runs the real 'go test' as its gate, and go is not on PATH: install Go from https://go.dev/dl/")
	}
	dir, temp := o.dir, o.dir == ""
	if temp {
		if dir, err = os.MkdirTemp("", "agentloop-demo-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	self, err := d.Executable()
	if err != nil {
		return fmt.Errorf("find this program for the demo agent: %w", err)
	}
	_, noGit := d.LookPath("git")
	warnf := func(format string, args ...any) { fmt.Fprintf(d.Stderr, "agentloop: "+format+"\n", args...) }
	if err := app.PrepareDemo(ctx, dir, self, goBin, noGit == nil, warnf); err != nil {
		return err
	}
	fmt.Fprintf(d.Stdout, "Demo project: %s (textkit: 3 failing tests)\n", dir)
	fmt.Fprintf(d.Stdout, "Agent: a scripted agent that fixes one failure per iteration; gate: go test -json ./...\n\n")
	in := d
	in.Getwd = func() (string, error) { return dir, nil }
	// The demo says itself where the run's state and logs are (absolute, when
	// it keeps them) or that they were removed: the run's own line names them
	// relative to the demo's folder, which is then often gone.
	in.Stderr = dropRunFolderLine{d.Stderr}
	args := []string{"run", "demo"}
	if o.verbose {
		args = append(args, "-v")
	}
	runErr := Run(ctx, args, in)
	if temp && !o.keep && (runErr == nil || ExitCode(runErr) == ExitInterrupted) {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintf(d.Stderr, "agentloop: remove the demo's folder %s: %v\n", dir, err)
			return runErr
		}
		fmt.Fprintf(d.Stdout, "\nRemoved the demo's folder %s (agentloop demo --keep keeps it, with its logs and HTML report).\n", dir)
		return runErr
	}
	fmt.Fprintf(d.Stdout, "\nKept the demo's folder %s\n", dir)
	fmt.Fprintf(d.Stdout, "State:  %s\n", filepath.Join(dir, ".agentloop", "state", "demo.json"))
	fmt.Fprintf(d.Stdout, "Logs:   %s\n", filepath.Join(dir, ".agentloop", "runs", "demo", ""))
	if path, err := demoReport(dir); err != nil {
		fmt.Fprintf(d.Stderr, "agentloop: the demo's HTML report: %v\n", err)
	} else {
		fmt.Fprintf(d.Stdout, "Report: %s (open it in a browser; 'agentloop report' writes it for any run)\n", path)
	}
	return runErr
}

// dropRunFolderLine passes on what the run prints but its last line naming
// the run's folder ("Logs and state: .agentloop/runs/demo/1"). The progress
// printer writes each line with one Write.
type dropRunFolderLine struct{ w io.Writer }

func (f dropRunFolderLine) Write(b []byte) (int, error) {
	if _, text, ok := bytes.Cut(b, []byte("] ")); ok && b[0] == '[' && bytes.HasPrefix(text, []byte("Logs and state: ")) {
		return len(b), nil
	}
	return f.w.Write(b)
}

// demoReport writes the demo run's HTML report next to the project.
func demoReport(dir string) (string, error) {
	r, err := app.LoadRunAt(filepath.Join(dir, ".agentloop"), "demo")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "report.html")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	if err := report.HTML(f, r); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
