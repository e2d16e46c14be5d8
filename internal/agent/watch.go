package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/budget"
	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/proc"
)

// watch feeds the agent's output lines to the parser (stdout and stderr come
// from two goroutines) and ends the run when the live usage crosses a limit it
// was given (what the run has left, as the decision engine judged it).
type watch struct {
	mu         sync.Mutex
	parser     Parser
	prices     Prices
	limits     budget.Limits
	cancel     context.CancelCauseFunc
	marker     string
	textMarker bool // look for the marker in every output line (text output)
	still      bool // the parser's Live never changes (text output): not read after each line
	promptHas  int  // marker lines in the prompt: an echoed prompt must not count
	seen       int  // marker lines in the output
	stopped    bool
	onRetry    func(Retry)    // told of each retry the CLI announces
	retries    int            // retries told so far
	checked    evidence.Usage // the usage last checked against the limits
	onUsage    func(evidence.Usage)
	told       evidence.Usage // the usage last told to onUsage
}

// RetryAuthError is the cancel cause when the CLI announced it would retry a
// request its provider rejected as unauthorised (HTTP 401/403): no retry can
// help, so the agent is ended at once instead of after the CLI's own backoff
// (Claude Code retries ten times, about three minutes).
type RetryAuthError struct{ Retry Retry }

func (e *RetryAuthError) Error() string {
	why := e.Retry.Error
	if e.Retry.Status > 0 {
		why = strings.TrimSpace(fmt.Sprintf("%s (HTTP %d)", why, e.Retry.Status))
	}
	return fmt.Sprintf("the provider rejected the request: %s; ended at the CLI's retry %d, as no retry can help", why, e.Retry.Attempt)
}

// markerLines counts the lines of s that are the marker alone (trimmed). A
// marker inside a sentence ("I did not print DONE") does not count.
func markerLines(s, marker string) int {
	if marker == "" {
		return 0
	}
	n := 0
	for line := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(line) == marker {
			n++
		}
	}
	return n
}

// stdoutLines returns the writer of the agent's stdout to the parser: the
// output split into the lines the format's parser reads ([newLines]), each
// write read under one lock (not one a line: a flood of short lines spent a
// quarter of its time taking it).
func (w *watch) stdoutLines(format string, maxLine int) io.WriteCloser {
	return &lockedWriter{mu: &w.mu, w: newLines(format, maxLine, w.stdout)}
}

// stdout reads a line of stdout; w.mu is held.
func (w *watch) stdout(line []byte) {
	w.parser.Line(line)
	if w.textMarker && w.marker != "" && string(bytes.TrimSpace(line)) == w.marker {
		w.seen++
	}
	if w.still {
		return
	}
	live := w.parser.Live()
	w.retried(live)
	w.check(live.Usage)
	if w.onUsage != nil && live.Usage != w.told {
		w.told = live.Usage
		w.onUsage(Estimate(live.Usage, w.prices))
	}
}

// retried tells of a retry the CLI announced since the last line, and ends the
// run on one its provider rejected as unauthorised.
func (w *watch) retried(out Live) {
	if out.Retries <= w.retries || w.stopped {
		return
	}
	w.retries = out.Retries
	if w.onRetry != nil {
		w.onRetry(out.LastRetry)
	}
	if out.LastRetry.Auth() && !w.stopped {
		w.stopped = true
		w.cancel(&RetryAuthError{Retry: out.LastRetry})
	}
}

func (w *watch) stderr(line []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if sp, ok := w.parser.(StderrParser); ok {
		sp.StderrLine(line)
		w.retried(w.parser.Live())
	}
}

// check cancels the run once, when live usage crosses a limit. Usage that did
// not change since the last line is not priced again.
func (w *watch) check(u evidence.Usage) {
	if w.stopped || (w.limits.MaxTokens <= 0 && w.limits.MaxCostUSD <= 0) || u == w.checked {
		return
	}
	w.checked = u
	if w.limits.MaxTokens > 0 && u.TokensKnown && u.TotalTokens() >= w.limits.MaxTokens {
		w.stopped = true
		w.cancel(&LimitError{Resource: "tokens", Spent: fmt.Sprint(u.TotalTokens()), Limit: fmt.Sprint(w.limits.MaxTokens)})
		return
	}
	if w.limits.MaxCostUSD > 0 {
		u = Estimate(u, w.prices)
		if u.CostKnown && u.CostUSD >= w.limits.MaxCostUSD {
			w.stopped = true
			w.cancel(&LimitError{Resource: "cost", Spent: fmt.Sprintf("$%.4f", u.CostUSD), Limit: fmt.Sprintf("$%.2f", w.limits.MaxCostUSD)})
		}
	}
}

// feedFile passes a usage log the CLI wrote (aider's analytics) to the parser.
func (w *watch) feedFile(path string, maxLine int) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	lines := proc.Lines(maxLine, func(line []byte) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.parser.Line(line)
	})
	_, _ = io.Copy(lines, io.LimitReader(f, 256<<20))
	_ = lines.Close()
}

func (w *watch) result() (Outcome, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.parser.Result()
	completed := w.seen > w.promptHas || (!w.textMarker && markerLines(out.Result, w.marker) > 0)
	return out, completed
}

// lockedWriter writes to w and closes it with mu held.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Close()
}

// fanout writes to every non-nil writer, ignoring their errors: a closed
// terminal or a full disk must not stop the agent's output from being read.
type fanout []io.Writer

func (f fanout) Write(p []byte) (int, error) {
	for _, w := range f {
		if w != nil && !isNilWriter(w) {
			_, _ = w.Write(p)
		}
	}
	return len(p), nil
}

func isNilWriter(w io.Writer) bool {
	switch v := w.(type) {
	case *os.File:
		return v == nil
	case *ring:
		return v == nil
	}
	return false
}

// ring keeps the last size bytes written.
type ring struct {
	mu   sync.Mutex
	size int
	buf  []byte
}

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(p) >= r.size {
		r.buf = append(r.buf[:0], p[len(p)-r.size:]...)
		return len(p), nil
	}
	if over := len(r.buf) + len(p) - r.size; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	r.buf = append(r.buf, p...)
	return len(p), nil
}

func (r *ring) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.buf)
}

func sortStrings(s []string) { slices.Sort(s) }
