package cli

import (
	"cmp"
	"io"
	"log/slog"
	"os"
	"strconv"

	"github.com/agentloop/agentloop/internal/app"
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/ui"
)

// loadConfig reads every configuration tier; a problem in it is a usage error.
func loadConfig(d Deps, file string, over config.Overrides) (*config.Config, error) {
	wd, err := d.Getwd()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(config.Options{ConfigFile: file, WorkDir: wd, Getenv: d.Getenv, Flags: over})
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return cfg, nil
}

// process is what a session touches of this process.
func process(d Deps) app.Process {
	return app.Process{Stdout: d.Stdout, Stderr: d.Stderr, Now: d.Now, Getwd: d.Getwd, User: func() string { return whoami(d) }}
}

// whoami names the person at the keyboard for a run's history: user@host.
func whoami(d Deps) string {
	u := cmp.Or(d.Getenv("USER"), d.Getenv("LOGNAME"))
	if h, err := os.Hostname(); err == nil && h != "" {
		return cmp.Or(u, "?") + "@" + h
	}
	return u
}

// canRedraw reports whether w is a terminal that understands cursor control (a
// live status line): not with TERM=dumb.
func canRedraw(d Deps, w io.Writer) bool {
	return d.IsTerminal(w) && d.Getenv("TERM") != "dumb"
}

// canColor reports whether w may get ANSI colours: a terminal, and the user did
// not turn colour off (NO_COLOR, https://no-color.org, or TERM=dumb).
func canColor(d Deps, w io.Writer) bool {
	return canRedraw(d, w) && d.Getenv("NO_COLOR") == ""
}

// newScreen is what the person sees while the loop runs.
func newScreen(d Deps, o loopOptions, logFormat string) *ui.Printer {
	format := o.logFormat
	if format == "" {
		format = logFormat
	}
	out := process(d).Progress(format == "json")
	return ui.New(ui.Options{
		Out: out, Now: d.Now, JSON: format == "json", Quiet: o.quiet, Verbose: o.verbose,
		Terminal: canRedraw(d, out) && !o.verbose, Color: canColor(d, out),
		Width: func() int { return termWidth(d, out) },
	})
}

// termWidth is the width of the terminal w is: COLUMNS when set (as other
// command-line tools read it), else the terminal's own size; 0 when unknown.
func termWidth(d Deps, w io.Writer) int {
	if n, err := strconv.Atoi(d.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if d.TermWidth == nil {
		return 0
	}
	return d.TermWidth(w)
}

// newLogger is the diagnostic log (stderr). What a person must know is told
// once, on the progress lines; the log adds only errors, or with -v
// everything, or with --log-format json warnings for a program.
func newLogger(d Deps, o loopOptions) *slog.Logger {
	level := slog.LevelError
	switch {
	case o.verbose:
		level = slog.LevelDebug
	case o.logFormat == "json":
		level = slog.LevelWarn
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(d.Stderr, opts)
	if o.logFormat == "json" {
		h = slog.NewJSONHandler(d.Stderr, opts)
	}
	return slog.New(h)
}

// configure is how a run of a graph's task (or a graph) loads its
// configuration: in the repository at dir, with the flags it recorded and
// those of o, given now, on top (a plan.Configure).
func configure(d Deps, o loopOptions) func(dir string, recorded []string) (*config.Config, []string, error) {
	return func(dir string, recorded []string) (*config.Config, []string, error) {
		lo, err := o.onRecorded(recorded)
		if err != nil {
			return nil, nil, err
		}
		at := d
		at.Getwd = func() (string, error) { return dir, nil }
		cfg, err := loadConfig(at, lo.config, lo.overrides())
		if err != nil {
			return nil, nil, err
		}
		return cfg, append(lo.recorded(), lo.envLimits(d.Getenv)...), nil
	}
}
