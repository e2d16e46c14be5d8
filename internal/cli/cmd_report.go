package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/report"
)

// reportOptions are the flags of `report`.
type reportOptions struct {
	format   string
	output   string
	stateDir string
	run      string
	closes   int
	engine   engineOptions
}

// AddFlags adds the flags of `report` to fs.
func (o *reportOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.format, "format", "", "md, html, json or pr (a pull request's body) (default: from the extension of --output, else md)")
	fs.IntVar(&o.closes, "closes", 0, "with --format pr: the issue number the pull request closes (\"Closes #N\")")
	fs.StringVarP(&o.output, "output", "o", "", "write to this file instead of stdout")
	fs.StringVar(&o.stateDir, "state-dir", "", "state folder (default .agentloop)")
	fs.StringVar(&o.run, "run", "", "the run of NAME with this id, an earlier one too (default: its current run)")
	o.engine.AddFlags(fs)
	o.engine.AddConfigFlag(fs)
}

func newReportCmd(d Deps) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report [NAME]",
		Short: "History, escalation report and charts of a run (md, html, json or pr)",
		Long: `Write the report of the run (or task graph) NAME: its whole history by segment
(every attempt, the hand-offs, the guidance given), spend, escalation reports and
charts, as Markdown, a self-contained HTML page, or JSON. --format pr writes the
body of a pull request for the run's work instead: a receipt from agentloop's own
records (the verdict, the gates before and after, the tamper check, the reviewer's
verdict, the iterations, the spend and where each figure came from), the agent's
own words labelled as its claim, redacted, under GitHub's limit. Without NAME, the only
run (or task graph) there is; with several, they are listed. --run reports an
earlier run of the same name, kept in its run folder.` + exitStatus(
			exitSuccess,
			exitLine{ExitFailure, "error, or no run or task graph named NAME"},
			exitLine{ExitUsage, "usage error, or no NAME given and several runs to choose from"}),
		Example: `  agentloop report build                      # Markdown to stdout
  agentloop report build --format html -o report.html
  agentloop report build --run 20260314-100000-a1b2   # an earlier run of build
  agentloop report build --format pr --closes 12 | gh pr create --body-file -`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(cmd.Context(), o, d, args) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runReport is `agentloop report NAME`.
func runReport(ctx context.Context, o reportOptions, d Deps, args []string) error {
	o.format = reportFormat(o.format, o.output)
	if _, ok := reportFormats[o.format]; !ok {
		return usageError("--format %q: want md, html, json or pr", o.format)
	}
	if o.closes != 0 && o.format != "pr" {
		return usageError("--closes is for --format pr: the body of a pull request")
	}
	if o.closes < 0 {
		return usageError("--closes %d: want an issue number", o.closes)
	}
	eng, err := chooseEngine(ctx, d, o.engine, engineUse{stateDir: o.stateDir})
	if err != nil {
		return err
	}
	defer eng.Close()
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	lastEvents := 0 // the JSON report has every event
	if o.format != "json" {
		lastEvents = report.ShownEvents // the HTML report shows the last ones, Markdown none
	}
	r, err := eng.Report(ctx, name, o.run, lastEvents)
	if err != nil {
		return err
	}
	if o.format == "pr" && len(r.Tasks) > 0 {
		return usageError("%s is a task graph: --format pr writes the pull request body of one run; give a task's run (its report lists them)", name)
	}
	return writeReport(o, d, r)
}

// writeReport writes the report of a run as --format and --output say.
func writeReport(o reportOptions, d Deps, r report.Run) error {
	write := reportFormats[o.format]
	pr := report.PROptions{Closes: o.closes, Environ: d.Environ()}
	out := d.Stdout
	var f *os.File
	if o.output != "" && o.output != "-" {
		var err error
		f, err = os.OpenFile(o.output, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("create report: %w", err)
		}
		defer f.Close()
		out = f
	}
	// The formats write in small pieces (a table cell, an SVG point): one
	// write call each made a report of a long run take seconds on a busy disk.
	w := bufio.NewWriterSize(out, 64<<10)
	err := write(w, r, pr)
	if err == nil {
		err = w.Flush()
	}
	if err == nil && f != nil {
		err = f.Close()
	}
	if err != nil {
		return fmt.Errorf("write the %s report: %w", o.format, err)
	}
	return nil
}

// reportFormat is the format a report is written in: --format in any case, else
// the one the extension of --output names (r.html: html), else md.
func reportFormat(format, output string) string {
	if format != "" {
		return strings.ToLower(format)
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(output), "."))
	if _, ok := reportFormats[ext]; ok {
		return ext
	}
	return "md"
}

// reportFormats are the report's formats by the name --format takes; only
// a pull request's body takes options.
var reportFormats = map[string]func(w io.Writer, r report.Run, pr report.PROptions) error{
	"md": noOptions(report.Markdown), "markdown": noOptions(report.Markdown), "html": noOptions(report.HTML),
	"json": noOptions(report.JSON), "pr": report.PR,
}

// noOptions is a report format that takes no options.
func noOptions(write func(io.Writer, report.Run) error) func(io.Writer, report.Run, report.PROptions) error {
	return func(w io.Writer, r report.Run, _ report.PROptions) error { return write(w, r) }
}
