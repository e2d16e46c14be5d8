package notify

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/proc"
)

// grace is how long a notifying command gets between SIGTERM and SIGKILL.
const grace = time.Second

// command runs a program with the notification's JSON on its standard input.
type command struct {
	argv []string
}

func (c *command) name() string {
	if len(c.argv) == 3 && c.argv[0] == "sh" && c.argv[1] == "-c" {
		if f := strings.Fields(c.argv[2]); len(f) > 0 {
			return "command " + filepath.Base(f[0])
		}
	}
	return "command " + filepath.Base(c.argv[0])
}

func (c *command) send(ctx context.Context, _ Notification, body []byte) error {
	return run(ctx, c.argv, body)
}

// run runs argv with stdin until it exits or ctx ends, judged by its exit
// status; what it printed on standard error says why it failed.
func run(ctx context.Context, argv []string, stdin []byte) error {
	var stderr bytes.Buffer
	res, err := proc.Run(ctx, proc.Spec{
		Argv: argv, Stdin: bytes.NewReader(stdin), Stderr: &limited{b: &stderr, n: 4 << 10},
		Grace: grace,
	})
	switch {
	case err != nil:
		return &permanentError{err}
	case res.Canceled:
		return context.Cause(ctx)
	case res.ExitCode != 0:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return fmt.Errorf("exit status %d", res.ExitCode)
		}
		return fmt.Errorf("exit status %d: %s", res.ExitCode, msg)
	}
	return nil
}

// limited keeps the first n bytes written to it.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// desktop shows a notification on this machine's desktop.
type desktop struct {
	argv func(n Notification) []string
}

// findDesktop is the desktop of this machine: notify-send with a display
// (Linux, the BSDs), osascript (macOS); nil when there is none.
func findDesktop(o Options) *desktop {
	if o.LookPath == nil {
		return nil
	}
	switch o.GOOS {
	case "darwin":
		if p, err := o.LookPath("osascript"); err == nil {
			return &desktop{argv: func(n Notification) []string {
				script := fmt.Sprintf("display notification %s with title %s", appleString(n.Text), appleString("agentloop: "+n.Title))
				return []string{p, "-e", script}
			}}
		}
	case "windows":
	default:
		if o.Getenv("DISPLAY") == "" && o.Getenv("WAYLAND_DISPLAY") == "" {
			return nil
		}
		if p, err := o.LookPath("notify-send"); err == nil {
			return &desktop{argv: func(n Notification) []string {
				urgency := "normal"
				if n.Type == target.KindNeedsYou {
					urgency = "critical"
				}
				return []string{p, "--app-name=agentloop", "--urgency=" + urgency, "agentloop: " + n.Title, n.Text}
			}}
		}
	}
	return nil
}

func (d *desktop) name() string { return "desktop" }

func (d *desktop) send(ctx context.Context, n Notification, _ []byte) error {
	if err := run(ctx, d.argv(n), nil); err != nil {
		return &permanentError{err} // a desktop that failed once will fail again
	}
	return nil
}

// appleString quotes s as an AppleScript string literal.
func appleString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
