package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/evidence"
	"github.com/agentloop/agentloop/internal/proc"
	"github.com/agentloop/agentloop/internal/redact"
)

// Defaults of a [Runner].
const (
	DefaultLogHead = 1 << 20 // bytes of the agent's output kept from the start
	DefaultLogTail = 1 << 20 // and from the end
	DefaultMaxLine = 8 << 20 // longest output line parsed; longer lines are cut
	maxArgPrompt   = 128<<10 - 1
	tailBytes      = 4 << 10
)

// Runner starts agent processes. The zero value works: default log sizes, the
// built-in price table, the process environment.
type Runner struct {
	Prices  *Prices       // nil: DefaultPrices()
	BaseEnv []string      // nil: os.Environ()
	Logger  *slog.Logger  // nil: discard
	LogHead int           // 0: DefaultLogHead
	LogTail int           // 0: DefaultLogTail
	MaxLine int           // 0: DefaultMaxLine
	Grace   time.Duration // 0: proc's default
	// Redact holds the secrets to redact from the agent's output beyond its
	// own environment's (nil: those alone).
	Redact *redact.Redactor
}

// Run starts the agent once and waits for it. A binary that cannot be started
// gives a result with StartFailed, not an error; the error is for agentloop's
// own failures (cannot write the log) and for ctx being canceled.
func (r *Runner) Run(ctx context.Context, req Request) (evidence.AgentResult, error) {
	p := req.Preset
	res := evidence.AgentResult{Agent: p.Name, LogPath: req.LogPath}
	if p.Name == "" {
		res.Agent = filepath.Base(p.Binary)
	}
	if err := p.Validate(); err != nil {
		return res, fmt.Errorf("run agent: %w", err)
	}
	if p.PromptVia == PromptArg && !p.LongPromptOnStdin && len(req.Prompt) > maxArgPrompt {
		return res, fmt.Errorf("run agent %s: the prompt is %d bytes, more than one argument can carry (128 KiB): set prompt_via: stdin or file",
			res.Agent, len(req.Prompt))
	}
	iterDir := req.IterDir
	if iterDir == "" {
		iterDir = filepath.Dir(req.LogPath)
	}
	promptFile := filepath.Join(iterDir, "agent-prompt.md")
	argv, stdin := p.Command(req.Prompt, promptFile)
	if p.PromptVia == PromptFile || slicesContainsSub(p.Args, PlaceholderPromptFile) {
		if err := os.WriteFile(promptFile, []byte(req.Prompt), 0o600); err != nil {
			return res, fmt.Errorf("write prompt file: %w", err)
		}
	}
	usageLog := ""
	if p.UsesUsageLog() {
		usageLog = filepath.Join(iterDir, "agent-usage.jsonl")
		_ = os.Remove(usageLog)
		for i, a := range argv {
			argv[i] = strings.ReplaceAll(a, PlaceholderUsageLog, usageLog)
		}
	}
	parser, err := NewParser(p.Format)
	if err != nil {
		return res, fmt.Errorf("run agent %s: %w", res.Agent, err)
	}
	log, err := proc.NewLog(req.LogPath, r.size(r.LogHead, DefaultLogHead), r.size(r.LogTail, DefaultLogTail))
	if err != nil {
		return res, fmt.Errorf("run agent %s: %w", res.Agent, err)
	}
	defer log.Close()

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := &watch{parser: parser, prices: r.prices(), limits: req.Limits, cancel: cancel,
		marker: req.CompletionMarker, textMarker: p.Format == FormatText, still: formats[p.Format].still,
		promptHas: markerLines(req.Prompt, req.CompletionMarker), onRetry: req.OnRetry, onUsage: req.OnUsage}
	maxLine := r.size(r.MaxLine, DefaultMaxLine)
	stdoutLines := w.stdoutLines(p.Format, maxLine)
	var stderrLines io.WriteCloser // only for a parser that reads stderr
	if _, ok := parser.(StderrParser); ok {
		stderrLines = newLines(p.Format, maxLine, w.stderr)
	}
	errTail := &ring{size: tailBytes}
	env := mergeEnv(r.baseEnv(), p.Env, req.Env)
	red := r.Redact.With(env) // the stream's ([Runner.Redactor]), for what its parsers decode
	echo := narrateTo(req.Echo, p.Format, maxLine, red, req.OnTool)
	spec := proc.Spec{
		Argv: argv, Dir: req.Dir, Env: env,
		Stdout:  fanout{log, stdoutLines, echo},
		Stderr:  fanout{log, stderrLines, errTail, req.Echo},
		Timeout: effectiveTimeout(req), IdleTimeout: req.IdleTimeout, Grace: r.Grace,
		Redact: r.Redact,
	}
	if stdin != "" {
		spec.Stdin = strings.NewReader(stdin)
	}
	if req.Sandbox != nil {
		wrapped, about, done, err := req.Sandbox.Wrap(ctx, spec)
		if err != nil {
			return res, fmt.Errorf("run agent %s: %w", res.Agent, err)
		}
		defer done()
		fmt.Fprintln(log, about)
		spec = wrapped
	}
	pr, err := proc.Run(runCtx, spec)
	_ = stdoutLines.Close()
	if echo != nil {
		_ = echo.Close()
	}
	if stderrLines != nil {
		_ = stderrLines.Close()
	}
	if usageLog != "" {
		w.feedFile(usageLog, maxLine)
	}
	if cerr := log.Close(); cerr != nil {
		r.logger().Warn("agent log incomplete", "path", req.LogPath, "err", cerr)
	}
	if se, ok := errors.AsType[*proc.StartError](err); ok {
		res.StartFailed, res.ExitCode = true, -1
		res.Outcome, res.Reason, res.Fix = startFailure(p, se)
		return res, nil
	} else if err != nil {
		return res, fmt.Errorf("run agent %s: %w", res.Agent, err)
	}
	out, completed := w.result()
	res.ExitCode, res.Signal, res.TimedOut, res.IdleTimedOut = pr.ExitCode, pr.Signal, pr.TimedOut, pr.IdleTimedOut
	res.Duration, res.OutputBytes, res.LeftBehind = pr.Duration, pr.OutputBytes, pr.LeftBehind
	res.Usage = EstimateOutcome(out, r.prices())
	res.Result, res.Terminal, res.Completed = out.Result, out.Terminal, completed
	res.Tail = string(log.Tail(tailBytes))
	res.Retries = out.Retries
	if out.Retries > 0 {
		res.LastRetry = out.LastRetry.String()
	}
	limitErr, limited := errors.AsType[*LimitError](context.Cause(runCtx))
	authErr, unauthorised := errors.AsType[*RetryAuthError](context.Cause(runCtx))
	switch {
	case pr.Canceled && limited:
		res.Outcome, res.Reason = evidence.OutcomeKilled, limitErr.Error()
	case pr.Canceled && unauthorised:
		res.Outcome, res.Reason, res.Fix = evidence.OutcomeAuth, authErr.Error(), fixFor(p, evidence.OutcomeAuth)
		if res.ExitCode == 0 {
			res.ExitCode = 1
		}
	case pr.Canceled:
		return res, fmt.Errorf("run agent %s: %w", res.Agent, context.Cause(ctx))
	case pr.TimedOut:
		res.Outcome, res.Reason = evidence.OutcomeTimedOut, fmt.Sprintf("timed out after %s", req.Timeout)
	case pr.IdleTimedOut:
		res.Outcome, res.Reason = evidence.OutcomeTimedOut, fmt.Sprintf("no output for %s: ended as stalled", req.IdleTimeout)
	default:
		c := Classify(p, pr.ExitCode, out, errTail.bytes(), pr.OutputBytes)
		res.Outcome, res.ResetAt, res.Reason, res.Fix = c.Outcome, c.ResetAt, c.Reason, c.Fix
		res.RateLimited, res.Transient = c.Outcome == evidence.OutcomeRateLimited, c.Outcome == evidence.OutcomeTransient
		if c.Outcome != evidence.OutcomeSucceeded && res.ExitCode == 0 {
			// The CLI said it failed (or its stream broke off) although it exited 0.
			res.ExitCode = 1
		}
	}
	// The parser decoded Result and what Reason quotes from the stream,
	// whose redaction saw them escaped (a quote as \", & as \u0026).
	res.Result, res.Reason = red.String(res.Result), red.String(res.Reason)
	r.logger().Debug("agent finished", "agent", res.Agent, "exit_code", res.ExitCode,
		"duration_ms", res.Duration.Milliseconds(), "outcome", res.Outcome, "reason", res.Reason)
	return res, nil
}

// Redactor is what redacts the output of an agent run with preset p and the
// extra environment env, as [Runner.Run] does: the Runner's secrets, the
// environment's and credential shapes. A consumer that decodes a text of the
// output again (a reviewer's verdict JSON) redacts what it decoded with it.
func (r *Runner) Redactor(p Preset, env map[string]string) *redact.Redactor {
	return r.Redact.With(mergeEnv(r.baseEnv(), p.Env, env))
}

func (r *Runner) size(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func (r *Runner) prices() Prices {
	if r.Prices != nil {
		return *r.Prices
	}
	return DefaultPrices()
}

func (r *Runner) baseEnv() []string {
	if r.BaseEnv != nil {
		return r.BaseEnv
	}
	return os.Environ()
}

func (r *Runner) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func slicesContainsSub(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// mergeEnv overlays the maps on base, later wins, keeping base's order.
func mergeEnv(base []string, overlays ...map[string]string) []string {
	out := make([]string, 0, len(base)+8)
	index := make(map[string]int, len(base))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := index[k]; ok {
			out[i] = kv
			continue
		}
		index[k] = len(out)
		out = append(out, kv)
	}
	for _, m := range overlays {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sortStrings(keys)
		for _, k := range keys {
			kv := k + "=" + m[k]
			if i, ok := index[k]; ok {
				out[i] = kv
				continue
			}
			index[k] = len(out)
			out = append(out, kv)
		}
	}
	return out
}

// startFailure judges a program that could not be started: not found, or found
// but not runnable.
func startFailure(p Preset, se *proc.StartError) (evidence.AgentOutcome, string, string) {
	if errors.Is(se, os.ErrPermission) {
		return evidence.OutcomeRefused, se.Error(), fmt.Sprintf("%s is not executable: check its permissions or the agent's cmd", p.Binary)
	}
	return evidence.OutcomeNotInstalled, se.Error(), InstallHint(p)
}

// InstallHint says how to get the preset's program onto PATH.
func InstallHint(p Preset) string {
	if p.Install != "" {
		return fmt.Sprintf("install %s (%s) or set the agent's cmd to where it is", p.Binary, p.Install)
	}
	return fmt.Sprintf("install %s or set the agent's cmd to where it is", p.Binary)
}
